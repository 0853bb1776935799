import Foundation
import ArgumentParser
import CNSESystem
import NSEBatch
import NSEMedia
import NSEPush

@main
struct NSECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nse",
        abstract: "Emulates an iOS Notification Service Extension on a push payload: would the image show?",
        version: NSEVersion.current,
        subcommands: [ProcessCommand.self, BatchCommand.self, ExtensionCommand.self, LintCommand.self, ResolveCommand.self, RouteCommand.self, ServeCommand.self]
    )

    /// ArgumentParser's own entry point, except that usage errors exit 2 (as documented) rather than 64.
    static func main() async {
        // glibc raises its mmap threshold to the size of every large block freed (up to 32 MB); from then on
        // image-sized buffers come from the per-thread arenas, which keep what is freed. A batch's peak memory
        // then grew with its pushes and threads. A fixed threshold keeps every block over 128 KiB in a mapping of
        // its own, returned to the system when freed.
        _ = csystem_malloc_set_mmap_threshold(128 * 1024)
        // glibc gives threads arenas of their own, up to 8 per core, each keeping what is freed in it. A batch's
        // worker runs a few dozen threads (the executor starts one per job while every other is busy), and only as
        // many run at once as there are cores: one arena per core lowers a batch's peak memory at no cost in time.
        _ = csystem_malloc_set_arena_max(Int32(ProcessInfo.processInfo.activeProcessorCount))
        // A reader that leaves (`nse batch | head`) must end only the printing: with SIGPIPE at its default the
        // first write after it killed nse before it wrote report.json, JUnit or HTML, and a batch's supervisor took
        // the signal for a crash. Ignored, a write to the closed pipe fails with EPIPE, which printing ignores.
        _ = signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let message = SubcommandSuggestion.error(for: arguments, commands: configuration.subcommands) {
            FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
            Foundation.exit(2)
        }
        if arguments.first == BatchCommand.configuration.commandName {
            if BatchSupervisor.isWorker(arguments) {
                // Before any thread starts, when growing the table is cheap: room for the largest batch `--jobs`
                // and `--read-ahead` allow. Only a batch's worker needs it; other commands' children keep the usual descriptor limit.
                DescriptorTable.prepare(for: DescriptorTable.needed(forJobs: BatchRunner.maxJobs, readAhead: BatchRunner.maxJobs))
                // libcurl loads on the other core while the arguments are parsed and the pushes listed, so the
                // first request leaves sooner. The supervisor never loads it; other commands load it at their first
                // download.
                CurlLibrary.preload()
            } else {
                // `nse batch` supervises a worker, which parses the same arguments and reports any mistake in them:
                // the supervisor starts it at once rather than parse them first (a few milliseconds of every start).
                Foundation.exit(BatchSupervisor.run(arguments: arguments))
            }
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
