import Foundation
import ArgumentParser
import NSEBatch
import NSECommandLine
import NSEConcurrency
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
        ProcessDefaults.apply()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let message = SubcommandSuggestion.error(for: arguments, commands: configuration.subcommands) {
            FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
            Foundation.exit(2)
        }
        if arguments.first == BatchCommand.configuration.commandName {
            if BatchSupervisor.isWorker(arguments) {
                // The supervisor started this worker with SIGINT and SIGTERM blocked: from here on they are caught,
                // and one relayed already is taken now and kept until the batch can stop on it.
                TerminationSignals.startCatching()
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
        await parseAndRun(arguments)
    }
}
