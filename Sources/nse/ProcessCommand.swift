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

    @Option(help: ArgumentHelp("Save each result as DIR/<name>/content.json with its attachment (inputs that share a name get their parent folders too).", valueName: "dir"))
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

        let outDirectory = out.map { URL(fileURLWithPath: $0) }
        let workspace: ResultWorkspace?
        do {
            workspace = try outDirectory.map { try ResultWorkspace(outDirectory: $0) }
        } catch {
            throw ValidationError("--out: \(error)")
        }
        defer { workspace?.remove() }
        let folderNames = ResultFolderNames.names(for: files)

        var results: [ProcessResult] = []
        for (index, file) in files.enumerated() {
            let staging = workspace?.stagingFolder(for: index)
            var result = await emulator.process(file: URL(fileURLWithPath: file), attachmentDirectory: staging)
            if let workspace, let staging, let outDirectory {
                let destination = outDirectory.appendingPathComponent(folderNames[index])
                do {
                    _ = try workspace.publish(&result, staged: staging, to: destination)
                } catch {
                    result.diagnostics.append(.warning(.mediaNotSaved, "The result could not be saved to \(destination.path): \(error.localizedDescription). The verdict is unaffected."))
                }
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
