import Foundation
import ArgumentParser
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import NSEReports

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

    @Argument(help: "APNs payloads (.json), simctl files (.apns) or FCM HTTP v1 messages; `-` reads one from standard input.", completion: .file())
    var files: [String]

    @Option(help: ArgumentHelp("Save each result as DIR/<name>/content.json with its attachment (inputs that share a name get their parent folders too).", valueName: "dir"))
    var out: String?

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: Format?

    @OptionGroup
    var terminal: TerminalOptions

    @OptionGroup
    var media: MediaOptions

    @Option(help: "Verify iOS (default), android (the FCM notification's image: 1 MiB, 5 s, a format Android decodes) or both.")
    var platform: Platform = .ios

    @OptionGroup
    var report: ReportOptions

    @OptionGroup
    var sdkOption: SDKOption

    @OptionGroup(title: "Content changes")
    var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    var device: DeviceOptions

    func validate() throws {
        if sdkOption.sdk == .all, out != nil || report.html != nil {
            throw ValidationError("--sdk all prints every helper's outcome side by side; --out and --html keep one helper's results: name it with --sdk, or leave --sdk at auto.")
        }
    }

    func run() async throws {
        let folder = try media.startFolder()
        defer { folder?.stop() }
        let server = folder?.server
        if sdkOption.sdk == .all {
            try await compareHelpers(hostMapping: MediaOptions.mapping(to: server))
            return
        }
        var pipeline = Pipeline(device: device.profile, changes: changes.changes, hostMapping: MediaOptions.mapping(to: server), sdk: sdkOption.sdk)
        pipeline.platform = platform

        let outDirectory = out.map { URL(fileURLWithPath: $0) }
        let html = try report.htmlWriter(limits: device.profile.imageLimits)
        let workspace: ResultWorkspace?
        do {
            // The HTML report needs the attachments until their previews are made, even without --out.
            workspace = try outDirectory != nil || html != nil ? ResultWorkspace(outDirectory: outDirectory) : nil
        } catch {
            throw ValidationError("--out: \(error)")
        }
        defer { workspace?.remove() }
        let folderNames = ResultFolderNames.names(for: files)

        var results: [ProcessResult] = []
        for (index, file) in files.enumerated() {
            let staging = workspace?.stagingFolder(for: index)
            var result = await pipeline.run(file: URL(fileURLWithPath: file), attachmentDirectory: staging)
            result.diagnostics += folder?.missingFiles(namedIn: result.diagnostics) ?? []
            if let workspace, let staging, let outDirectory {
                let destination = outDirectory.appendingPathComponent(folderNames[index])
                // A failure is noted in the result and in `workspace.unsavedResults`, which ends the run with status 2.
                _ = try? workspace.publish(&result, staged: staging, to: destination)
            }
            if let html {
                let push = CompletedPush(index: index, staged: result, kept: outDirectory != nil)
                await html.add(push)
                result = push.result
            }
            results.append(result)
        }
        print(render(results))
        // A result or report that could not be written is as bad as an input that could not be read: exit 2.
        var problems = workspace?.unsavedResults ?? []
        if let html, let path = report.html {
            let summary = BatchSummary(results: results, strict: report.strict)
            do {
                try html.write(summary: summary, to: URL(fileURLWithPath: path))
            } catch {
                problems.append("\(path) could not be written: \(error.localizedDescription)")
            }
        }
        for problem in problems { FileHandle.standardError.write(Data("Error: \(problem)\n".utf8)) }
        let status = !problems.isEmpty ? 2 : results.map { $0.exitStatus(strict: report.strict) }.max() ?? 0
        if status != 0 { throw ExitCode(status) }
    }

    /// `--sdk all`: every helper of the build on each file, side by side; the exit status is that of the helper
    /// `--sdk auto` picks, so the comparison can stand in a CI step where the others are information.
    private func compareHelpers(hostMapping: MediaHostMapping?) async throws {
        var comparisons: [SDKComparison] = []
        for file in files {
            var comparison = SDKComparison(input: file, detected: HelperChoice(sdk: .firebase, selection: .default, reason: ""))
            for sdk in PushSDK.allCases {
                var pipeline = Pipeline(device: device.profile, changes: changes.changes, hostMapping: hostMapping, sdk: .only(sdk))
                pipeline.platform = platform
                let result = await pipeline.run(file: URL(fileURLWithPath: file))
                comparison.inputKind = result.inputKind
                comparison.helpers.append(SDKComparison.Row(sdk: sdk, result: result, strict: report.strict))
            }
            comparison.detect(from: URL(fileURLWithPath: file))
            comparisons.append(comparison)
        }
        switch format ?? (isatty(STDOUT_FILENO) != 0 ? .text : .json) {
        case .text:
            print(terminal.style.apply(comparisons.map(SDKComparisonRenderer().render).joined(separator: "\n\n")))
        case .json:
            let renderer = JSONResultRenderer()
            let data = comparisons.count == 1 ? renderer.encode(comparisons[0]) : renderer.encode(comparisons)
            print(String(decoding: data, as: UTF8.self))
        }
        let status = comparisons.map(\.exitStatus).max() ?? 0
        if status != 0 { throw ExitCode(status) }
    }

    private func render(_ results: [ProcessResult]) -> String {
        switch format ?? (isatty(STDOUT_FILENO) != 0 ? .text : .json) {
        case .text:
            let renderer = TextResultRenderer()
            var text = results.map(renderer.render).joined(separator: "\n\n")
            if results.count > 1 { text += "\n\n" + renderer.totals(BatchSummary(results: results, strict: report.strict)) }
            return terminal.style.apply(text)
        case .json:
            let renderer = JSONResultRenderer()
            if results.count == 1 { return renderer.render(results[0]) }
            return String(decoding: renderer.encode(results), as: UTF8.self)
        }
    }
}
