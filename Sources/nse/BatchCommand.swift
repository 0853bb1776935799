import Foundation
import ArgumentParser
import NSEBatch
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import NSEReports

struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run every push file under folders through the emulated extension, concurrently, for CI.",
        discussion: """
            Walks the folders (recursively) for .json and .apns files, processes each as `nse process` does and, \
            with --out, saves OUT/<path under its folder>/content.json with its attachment, and OUT/report.json. \
            Exit status: 0 when every push passes, 1 when any fails verification, 2 for usage errors or an \
            unreadable input, 130 when interrupted (Ctrl-C; results already saved stay).
            """
    )

    @Argument(help: "Folders to walk (and single push files).", completion: .directory)
    var paths: [String]

    @Option(help: ArgumentHelp("Save each result as DIR/<path relative to its folder>/content.json with its attachment, and DIR/report.json.", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("Pushes in flight at once. A push waiting on the network holds no thread (every download shares one network thread), and decoding runs one image per core whatever this is, so a high number costs little: with --read-ahead, it is how many downloads a slow CDN may keep waiting.", valueName: "n"))
    var jobs = BatchRunner.defaultJobs

    @Option(name: .customLong("read-ahead"), help: ArgumentHelp("Start the downloads of this many queued pushes before their turn (default: as many as --jobs; 0: none), where the download is known before the extension runs (Firebase's helper's). At most --jobs plus this many downloads are in flight.", valueName: "n"))
    var readAhead: Int?

    @Option(help: ArgumentHelp("Also write JUnit XML (one test case per push) to this file.", valueName: "file"))
    var junit: String?

    @Flag(help: "No progress bar and no line per file: only the summary.")
    var quiet = false

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, github
    }

    @Option(help: "text: a line per push and the summary (the default); json: JSON Lines, one result per line on stdout (summary on stderr); github: workflow annotations on the push files, and the summary.")
    var format: Format = .text

    @OptionGroup
    var terminal: TerminalOptions

    @Option(name: .customLong("markdown-summary"), help: ArgumentHelp("Append the summary in Markdown to this file (default with --format github: $GITHUB_STEP_SUMMARY).", valueName: "file"))
    var markdownSummary: String?

    @Option(help: "Verify iOS (default), android (the FCM notification's image) or both, as for process.")
    var platform: Platform = .ios

    @OptionGroup
    var report: ReportOptions

    @OptionGroup
    var media: MediaOptions

    @OptionGroup
    var sdkOption: SDKOption

    @OptionGroup(title: "Content changes")
    var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    var device: DeviceOptions

    // The worker's side of `BatchSupervisor`: set only by the supervisor when it starts the worker.
    @Option(name: .customLong("worker-journal"), help: .hidden)
    var workerJournal: String?
    @Option(name: .customLong("worker-only"), help: .hidden)
    var workerOnly: Int?
    @Option(name: .customLong("worker-crashed"), help: .hidden)
    var workerCrashed: [String] = []

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("Name at least one folder of push files.") }
        guard (1...BatchRunner.maxJobs).contains(jobs) else { throw ValidationError("--jobs must be between 1 and \(BatchRunner.maxJobs).") }
        guard (0...BatchRunner.maxJobs).contains(readAhead ?? 0) else { throw ValidationError("--read-ahead must be between 0 and \(BatchRunner.maxJobs).") }
        // A batch gives each push one verdict from one helper; the side-by-side comparison is per file.
        guard sdkOption.sdk != .all else {
            throw ValidationError("--sdk all compares every helper on each push side by side: run `nse process --sdk all FILES` (--format json for the comparison as JSON). A batch judges each push by one helper: --sdk auto (the default: detected from each payload's keys) or --sdk NAME.")
        }
    }

    /// Appends to a file (GitHub's step summary is shared by the job's steps), creating it if missing.
    private static func append(_ text: String, to file: URL) throws {
        if !FileManager.default.fileExists(atPath: file.path) {
            try AtomicFile.write(Data(), to: file)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// A problem with what the user named, found after parsing: said on stderr, exit status 2.
    private static func usageError(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode(2)
    }

    func run() async throws {
        guard let workerJournal else {
            // `nse`'s entry point starts the supervisor before parsing; this is for a caller that parses itself.
            let status = BatchSupervisor.run(arguments: Array(CommandLine.arguments.dropFirst()))
            if status != 0 { throw ExitCode(status) }
            return
        }
        var outDirectory = out.map { URL(fileURLWithPath: $0) }
        var inputs: [BatchInput]
        do {
            inputs = try BatchInputDiscovery.discover(paths, excluding: outDirectory.map { [$0] } ?? [])
        } catch {
            throw Self.usageError(error.description)
        }
        guard !inputs.isEmpty else {
            throw Self.usageError("No .json or .apns files under \(paths.joined(separator: ", ")).")
        }
        for crash in workerCrashed {
            let fields = crash.split(separator: ":", maxSplits: 1)
            guard fields.count == 2, let index = Int(fields[0]), inputs.indices.contains(index) else { continue }
            inputs[index].crashedWith = String(fields[1])
        }
        var indexes = Array(inputs.indices)
        if let workerOnly {
            // A suspect re-run alone: whether it crashes is the answer, so no results are written. An index the
            // folders no longer have (files removed since) names nothing to re-run.
            guard inputs.indices.contains(workerOnly) else { return }
            indexes = [workerOnly]
            inputs = [inputs[workerOnly]]
            outDirectory = nil
        }
        let journal = try CrashJournal(file: URL(fileURLWithPath: workerJournal))
        if let outDirectory {
            do {
                try FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)
            } catch {
                throw Self.usageError(OutputFolderError(folder: outDirectory).description)
            }
        }

        let folder = try media.startFolder()
        defer { folder?.stop() }
        var pipeline = Pipeline(device: device.profile, changes: changes.changes, hostMapping: MediaOptions.mapping(to: folder?.server), sdk: sdkOption.sdk)
        pipeline.platform = platform
        var runner = BatchRunner(pipeline: pipeline, jobs: jobs, readAhead: readAhead, outDirectory: outDirectory)
        if let folder {
            runner.amendResult = { result in result.diagnostics += folder.missingFiles(namedIn: result.diagnostics) }
        }
        runner.strict = report.strict
        runner.onStart = { [indexes, inputs] in journal.started(indexes[$0], path: inputs[$0].displayPath) }
        // A suspect re-run alone (--worker-only) writes no report: only whether it crashes matters.
        let html: HTMLReportWriter?
        do {
            html = workerOnly == nil ? try report.htmlWriter(limits: device.profile.imageLimits) : nil
        } catch {
            throw Self.usageError("cannot start the HTML report: \(error.localizedDescription)")
        }
        let jsonLines = format == .json ? JSONLinesOutput() : nil
        if html != nil || jsonLines != nil {
            runner.onResult = { push in
                await html?.add(push)
                jsonLines?.write(push.result)
            }
        }

        let onTerminal = isatty(STDOUT_FILENO) != 0 && isatty(STDERR_FILENO) != 0
        // GitHub's annotations are printed even with --quiet: they are the point of --format github.
        let display: BatchProgress.Mode = switch format {
        case .github: .lines
        case _ where quiet: .silent
        case .json: isatty(STDERR_FILENO) != 0 ? .bar : .silent
        case .text: onTerminal ? .bar : .lines
        }
        let annotations = GitHubAnnotationRenderer()
        let lineRenderer = BatchTextRenderer()
        let quiet = quiet
        // Annotations are read by GitHub, not by a person: they are never styled.
        let style = format == .text ? terminal.style : .plain
        let progress = BatchProgress(total: inputs.count, mode: display) { entry in
            guard format == .github else { return [style.apply(lineRenderer.line(for: entry))] }
            return (quiet ? [] : [lineRenderer.line(for: entry)]) + annotations.annotations(for: entry)
        }
        let batch = Task { [runner, indexes] in
            try await runner.run(inputs) { index, entry in
                journal.finished(indexes[index])
                progress.record(index, entry)
            }
        }
        let interruption = Interruption { batch.cancel() }
        let batchReport: BatchReport
        do {
            batchReport = try await batch.value
        } catch {
            throw Self.usageError("cannot write results to \(out ?? ""): \(error.localizedDescription)")
        }
        interruption.stopListening()
        progress.finish()

        var summary = BatchTextRenderer().summary(batchReport.summary)
        if let reportFile = batchReport.reportFile { summary += "\nresults: \(outDirectory?.relativePath ?? "")/  report: \(reportFile.relativePath)" }
        var problems = batchReport.unsavedResults + (batchReport.reportError.map { [$0] } ?? [])
        if let junit, workerOnly == nil {
            let file = URL(fileURLWithPath: junit)
            do {
                try AtomicFile.write(Data(JUnitRenderer().render(batchReport).utf8), to: file)
                summary += "\njunit: \(file.relativePath)"
            } catch {
                problems.append("\(file.path) could not be written: \(error.localizedDescription)")
            }
        }
        if let html, let path = report.html {
            let file = URL(fileURLWithPath: path)
            do {
                try html.write(summary: batchReport.summary, to: file)
                summary += "\nhtml: \(file.relativePath)"
            } catch {
                problems.append("\(file.path) could not be written: \(error.localizedDescription)")
            }
        }
        let markdownFile = markdownSummary ?? (format == .github ? ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"] : nil)
        if let markdownFile, !markdownFile.isEmpty, workerOnly == nil {
            do {
                try Self.append(MarkdownSummaryRenderer().render(batchReport.summary, strict: report.strict), to: URL(fileURLWithPath: markdownFile))
            } catch {
                problems.append("\(markdownFile) could not be written: \(error.localizedDescription)")
            }
        }
        if format == .json {
            // stdout carries only JSON Lines.
            FileHandle.standardError.write(Data((summary + "\n").utf8))
        } else {
            print(style.apply(summary))
        }
        for problem in problems { FileHandle.standardError.write(Data("Error: \(problem)\n".utf8)) }

        // A report CI cannot read is as bad as an input it cannot read: exit 2.
        let status = interruption.signal.map { 128 + $0 } ?? (problems.isEmpty ? batchReport.summary.exitStatus : 2)
        if status != 0 { throw ExitCode(status) }
    }
}
