import Foundation
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports

/// The outcome of a batch: one entry per input (nil for those an interruption left unprocessed) and the summary.

/// Runs every input through the same `Pipeline` as `nse process`, at most `jobs` at a time, and saves each
/// result (`OUT/<path relative to its root>/content.json` plus its attachment) as soon as it is complete.
///
/// Downloads and validations are shared through one `SharedMediaCache`. Cancelling the task that runs the
/// batch stops it: no new push starts, transfers in flight abort, results already saved stay, and nothing
/// half-written is left behind.
package struct BatchRunner: Sendable {
    package var pipeline: Pipeline
    /// Pushes in flight at once (each holds at most one transfer or one decode). Waiting on the network costs a
    /// push no thread, and decoding runs one per core whatever this is, so it only bounds, with `readAhead`, how
    /// many downloads are outstanding (and the small record each push in flight keeps).
    package var jobs: Int

    /// Queued pushes read and checked before their turn, as far ahead of the last push started, with the download
    /// their extension is certain to make started (`ExtensionPlan.download`, Firebase's helper's). The push
    /// then finds its download in flight or done, so a batch longer than `jobs` does not wait on the network in
    /// waves; at most `jobs + readAhead` transfers are in flight. When not 0, the runner's loop also reads each
    /// push not read ahead at its own turn, so every request leaves from the loop, none behind the extension work
    /// of the pushes already started. 0: none (each push is read by its own task).
    package var readAhead: Int

    /// `nse batch`'s default: enough transfers in flight to hide a CDN's first-byte latency (150 ms at 8 MB/s
    /// needs about 100 to keep two cores decoding), few enough to stay polite to one host and within 64 MB.
    package static let defaultJobs = 256
    /// The most `--jobs` (and `--read-ahead`) accepts: each push in flight holds descriptors (`DescriptorTable`).
    package static let maxJobs = 1024
    /// Where results go; nil keeps only the summary (and whatever the caller renders from the entries).
    package var outDirectory: URL?
    /// `--strict`: a push with warnings fails.
    package var strict = false
    /// Sees every complete result, while its attachment files still exist (the HTML report, JSON Lines); called
    /// concurrently, in completion order. When set, attachments are staged even without `outDirectory`.
    package var onResult: (@Sendable (CompletedPush) async -> Void)?
    /// Adds to a push's result before it is saved (`nse batch --media`: the local file a 404 stood for).
    package var amendResult: (@Sendable (inout ProcessResult) -> Void)?

    /// Called with a push's index as it starts (before any of its work), and before that when it is read and its
    /// download started ahead of its turn (`readAhead`): with `onEntry`, what a supervisor needs to tell which
    /// pushes were in flight when the process died.
    package var onStart: (@Sendable (Int) -> Void)?

    /// `readAhead` nil: as many as `jobs`.
    package init(pipeline: Pipeline, jobs: Int, readAhead: Int? = nil, outDirectory: URL?) {
        self.pipeline = pipeline
        self.jobs = max(1, jobs)
        self.readAhead = max(0, readAhead ?? jobs)
        self.outDirectory = outDirectory
    }

    /// Processes `inputs`; `onEntry` is called (in completion order, one call at a time) as each is saved.
    /// Throws only when the batch cannot start (its working folder cannot be made in the output folder).
    package func run(_ inputs: [BatchInput], onEntry: @Sendable (Int, BatchEntry) -> Void = { _, _ in }) async throws -> BatchReport {
        let started = ContinuousClock.now
        DescriptorTable.prepare(for: DescriptorTable.needed(forJobs: jobs, readAhead: readAhead))
        let workspace = try ResultWorkspace(outDirectory: outDirectory)
        defer { workspace.remove() }
        workspace.workFolders.expectTakers(inputs.count)
        let cache = try SharedMediaCache(directory: workspace.cache)
        var configured = pipeline
        configured.mediaCache = cache
        let transfers = TransferCancellation()
        configured.transferCancellation = transfers
        let pipeline = configured

        var entries = [BatchEntry?](repeating: nil, count: inputs.count)
        var spans = [Range<UInt64>?](repeating: nil, count: inputs.count)
        await withTaskCancellationHandler {
            await withTaskGroup(of: (Int, Processed?).self) { group in
                var next = 0
                // Pushes read ahead of their turn, by index: at most `readAhead`, each taken by its push as it starts.
                var readAheads: [Int: Pipeline.ReadAhead] = [:]
                // The next input to read ahead of its turn (its download started): up to `readAhead` past the last
                // started. Every input below it was read ahead or started at its turn; with read-ahead off, always 0.
                var ahead = 0
                // Reads the next input not yet read (journaled as started), starting its download.
                func readNextAhead() {
                    let index = ahead
                    ahead += 1
                    onStart?(index)
                    guard refusal(of: inputs[index]) == nil else { return }
                    readAheads[index] = pipeline.readAhead(file: inputs[index].file)
                }
                func startNext() {
                    guard next < inputs.count, !Task.isCancelled else { return }
                    let index = next
                    let input = inputs[index]
                    next += 1
                    // With read-ahead on, a push not read ahead yet is read here, at its turn, rather than in its
                    // task: its download then starts before the work of the pushes started just before it (the
                    // whole first wave's requests leave from this loop). A push read ahead was journaled then.
                    if index >= ahead {
                        if readAhead > 0 { readNextAhead() } else { onStart?(index) }
                    }
                    let read = readAheads.removeValue(forKey: index)
                    group.addTask { [self] in
                        (index, await process(input, index: index, readAhead: read, pipeline: pipeline, workspace: workspace))
                    }
                }
                func readPushesAhead() {
                    // With read-ahead off, `ahead` stays 0: reading here would read again, and journal again as
                    // started, pushes already started at their turn.
                    guard readAhead > 0 else { return }
                    while ahead < min(next + readAhead, inputs.count), !Task.isCancelled { readNextAhead() }
                }
                readPushesAhead()
                for _ in 0..<jobs { startNext() }
                readPushesAhead()
                for await (index, processed) in group {
                    if let processed {
                        entries[index] = processed.entry
                        spans[index] = processed.span
                        onEntry(index, processed.entry)
                    }
                    startNext()
                    readPushesAhead()
                }
            }
        } onCancel: {
            transfers.cancel()
        }

        let interrupted = Task.isCancelled || entries.contains { $0 == nil }
        var summary = BatchSummary(
            entries: entries, media: cache.statistics, jobs: jobs,
            elapsedMilliseconds: started.duration(to: .now).milliseconds, interrupted: interrupted)
        summary.peakMemoryBytes = PeakMemory.bytes()
        var report = BatchReport(inputs: inputs, entries: entries, summary: summary)
        report.unsavedResults = workspace.unsavedResults
        if let outDirectory {
            let file = outDirectory.appending(path: "report.json")
            do {
                try BatchReportFile.write(summary: summary, spans: spans, from: workspace, to: file)
                report.reportFile = file
            } catch {
                report.reportError = "\(file.path) could not be written: \(error.localizedDescription)"
            }
        }
        return report
    }

    private struct Processed: Sendable {
        var entry: BatchEntry
        var span: Range<UInt64>?
    }

    /// One push, start to saved result; nil when the batch was cancelled meanwhile (nothing is kept).
    private func process(
        _ input: BatchInput, index: Int, readAhead: Pipeline.ReadAhead?, pipeline: Pipeline, workspace: ResultWorkspace
    ) async -> Processed? {
        let staging = outDirectory != nil || onResult != nil ? workspace.stagingFolder(for: index) : nil
        // Once published, the staging folder is gone; only an unpublished one is removed (FileManager builds an
        // error object for one that is missing).
        defer { if let staging, access(staging.path, F_OK) == 0 { try? FileManager.default.removeItem(at: staging) } }
        // Handed back only once the result is saved and rendered: until then its attachments may still be there.
        var pipeline = pipeline
        pipeline.workFolder = workspace.workFolders.take()
        defer { if let folder = pipeline.workFolder { workspace.workFolders.giveBack(folder) } }

        var result: ProcessResult
        if let problem = refusal(of: input) {
            result = problem
        } else {
            result = await pipeline.run(file: input.file, attachmentDirectory: staging, readAhead: readAhead)
            amendResult?(&result)
        }
        // A result finished after Ctrl-C may hold a transfer cut short: only complete results are kept.
        guard !Task.isCancelled else { return nil }

        let span = save(&result, of: input, staged: staging, workspace: workspace)
        if let onResult {
            let push = CompletedPush(index: index, staged: result, kept: outDirectory != nil)
            await onResult(push)
            result = push.result
        }
        return Processed(entry: BatchEntry(result, outputPath: input.outputPath, strict: strict), span: span)
    }

    /// Publishes the result into the output folder and spools it for report.json: where in the spool it is.
    /// Out of line, like `refusal(of:)`: what an async function keeps on its frame, every push waiting on the
    /// network holds.
    @inline(never)
    private func save(_ result: inout ProcessResult, of input: BatchInput, staged: URL?, workspace: ResultWorkspace) -> Range<UInt64>? {
        guard let outDirectory, let staged else { return nil }
        let destination = outDirectory.appending(path: input.outputPath)
        do {
            return try workspace.spoolResult(workspace.publish(&result, staged: staged, to: destination))
        } catch {
            // `publish` noted it in the result and in `unsavedResults`.
            return try? workspace.spoolResult(JSONResultRenderer().encode(result))
        }
    }

    /// A result for an input the pipeline cannot be handed: a folder that could not be listed, a file not read.
    @inline(never)
    private func refusal(of input: BatchInput) -> ProcessResult? {
        let path = input.displayPath
        if let listingError = input.listingError {
            return ProcessResult(
                input: path, inputKind: nil, extensionInvoked: false, outcome: .rejected, imageShown: false, content: nil,
                diagnostics: [.error(.inputUnreadable, "Cannot list the folder \(path): \(listingError). Its push files were not checked; fix its permissions.")],
                timings: ["total": 0])
        }
        if let signal = input.crashedWith {
            return ProcessResult(
                input: path, inputKind: nil, extensionInvoked: false, outcome: .rejected, imageShown: false, content: nil,
                diagnostics: [.error(.internalCrash, "nse itself crashed (\(signal)) while processing this push: a bug in nse, not a verdict on the push. The rest of the batch was processed without it. Please report it with this file; `nse lint` may still check it.")],
                timings: ["total": 0])
        }
        if let reason = input.unreadableReason {
            return ProcessResult(
                input: path, inputKind: nil, extensionInvoked: false, outcome: .rejected, imageShown: false, content: nil,
                diagnostics: [.error(.inputUnreadable, "Cannot read \(path): \(reason).")],
                timings: ["total": 0])
        }
        return nil
    }
}
