import ArgumentParser
import Foundation
import NSEKit
import NSEHarness

struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run pushes through the emulated extension and report what the phone shows.",
        discussion: """
            Exit status: 0 when every push shows the intended content (and its image, if one is asked for), \
            1 when verification finds an error, 2 for usage errors or an unreadable file.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "APNs payloads (.json), simctl files (.apns) or FCM HTTP v1 messages.", completion: .file())
    var files: [String]

    @Option(help: ArgumentHelp("Save each result as DIR/<name>/content.json with its attachment.", valueName: "dir"))
    var out: String?

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: Format?

    @OptionGroup
    var media: MediaOptions

    @Option(help: "Verify iOS (default), android (the FCM notification's image: 1 MiB, 5 s, a format Android decodes) or both.")
    var platform: Platform = .ios

    @OptionGroup(title: "Content changes")
    var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    var device: DeviceOptions

    func run() async throws {
        let server = try media.startServer()
        defer { server?.stop() }
        var emulator = Emulator(profile: device.profile, changes: changes.changes, hostMapping: MediaOptions.mapping(to: server))
        emulator.platform = platform

        var results: [ProcessResult] = []
        for file in files {
            let input = URL(fileURLWithPath: file)
            let folder = out.map { URL(fileURLWithPath: $0).appendingPathComponent(input.deletingPathExtension().lastPathComponent) }
            let result = await emulator.process(file: input, attachmentDirectory: folder)
            if let folder {
                try AtomicFile.write(JSONResultRenderer().encode(result), to: folder.appendingPathComponent("content.json"))
            }
            results.append(result)
        }
        print(render(results))
        let status = results.map(\.exitStatus).max() ?? 0
        if status != 0 { throw ExitCode(status) }
    }

    private func render(_ results: [ProcessResult]) -> String {
        switch format ?? (isatty(STDOUT_FILENO) != 0 ? .text : .json) {
        case .text:
            let renderer = TextResultRenderer()
            return results.map(renderer.render).joined(separator: "\n\n")
        case .json:
            let renderer = JSONResultRenderer()
            if results.count == 1 { return renderer.render(results[0]) }
            return String(decoding: renderer.encode(results), as: UTF8.self)
        }
    }
}
