import Foundation
import NSEConcurrency
import NSEMedia
import NSEPush

/// One push through what an iPhone does with it: the delivery checks, the decision to run the service extension,
/// the extension itself, and the system's validation of its attachments; the result is what the phone shows, with
/// the verdict and the diagnostics. The CLI, a batch, the harness and `nse serve` all run pushes through it.
///
/// ```swift
/// let result = await Pipeline(device: profile).run(push)
/// ```
///
/// Every effect outside the process's memory comes in through it: the transfers (`transport`), the clock of the
/// extension's budget and expiry call (`clock`), and the files (`files`: the working folder, the kept attachments).
/// The commands use libcurl, the system clock and the temporary directory; unit tests give `ScriptedTransport` and a
/// `ManualClock`.
public struct Pipeline: Sendable {
    public var profile: DeviceProfile
    /// What runs the service extension: NSEHarness's runner, for the built-in extension or an app's own.
    public var extensionRunner: any ExtensionRunner
    public var hostMapping: MediaHostMapping?
    /// Which sides of an FCM message to verify: iOS (the default), Android, or both.
    public var platform: Platform = .ios
    /// How long the Android image download may take (the FCM SDK's 5 seconds; shorter in tests).
    public var androidBudget: Duration = AndroidImageCheck.downloadBudget
    /// Shared by the pushes of a batch: each URL is downloaded, and each downloaded file validated, once.
    public var mediaCache: SharedMediaCache?
    /// The run's private working folder, made and removed by its owner (a batch's `WorkFolderPool`, beside its
    /// output so attachments move into place by rename); nil: a new folder from `files`, removed after the run.
    public var workFolder: URL?
    /// Aborts every download of this pipeline when cancelled (a batch's Ctrl-C); downloads run on threads of
    /// their own, which task cancellation does not reach.
    public var transferCancellation: TransferCancellation?
    /// What carries the downloads: libcurl's transfers, or a unit test's `ScriptedTransport`.
    package var transport: any MediaTransport = CurlTransport()
    /// The clock of the extension's budget, its expiry call and the result's timings.
    package var clock: any PipelineClock = SystemClock()
    /// Where the run's working folder is made and where kept attachments are moved.
    package var files: any FileStore = TemporaryFileStore()

    /// A pipeline for a phone with `device`'s rules, its extension run by `extensionRunner`.
    public init(device: DeviceProfile, extensionRunner: any ExtensionRunner, hostMapping: MediaHostMapping? = nil) {
        self.profile = device
        self.extensionRunner = extensionRunner
        self.hostMapping = hostMapping
    }

    @available(*, deprecated, renamed: "init(device:extensionRunner:hostMapping:)")
    public init(profile: DeviceProfile, extensionRunner: any ExtensionRunner, hostMapping: MediaHostMapping? = nil) {
        self.init(device: profile, extensionRunner: extensionRunner, hostMapping: hostMapping)
    }

    /// The same pipeline with its effects replaced: what a unit test runs pushes through.
    package func with(transport: any MediaTransport, clock: any PipelineClock, files: any FileStore = TemporaryFileStore()) -> Pipeline {
        var pipeline = self
        pipeline.transport = transport
        pipeline.clock = clock
        pipeline.files = files
        return pipeline
    }

    /// Runs the push in `file`. With `attachmentDirectory`, kept attachments are saved there. With `readAhead`
    /// (from `readAhead(file:)`), the push is not read and checked again.
    public func run(file: URL, attachmentDirectory: URL? = nil, readAhead: ReadAhead? = nil) async -> ProcessResult {
        let started = clock.now
        let push: ReceivedPush
        if let readAhead {
            push = readAhead.push
        } else {
            do {
                push = try PushReader.read(file)
            } catch {
                return ProcessResult(
                    input: file.relativePath, inputKind: nil, extensionInvoked: false, outcome: .rejected, imageShown: false,
                    content: nil, diagnostics: [error.diagnostic], timings: ["read": started.duration(to: clock.now).milliseconds])
            }
        }
        let reading = readAhead?.readMilliseconds ?? started.duration(to: clock.now).milliseconds
        var result = await run(push, input: file.relativePath, attachmentDirectory: attachmentDirectory, checked: readAhead)
        result.timings["read"] = reading
        result.timings["total", default: 0] += reading
        return result
    }

    /// Runs a push already read; `input` names it in the result.
    public func run(_ push: ReceivedPush, input: String = "payload", attachmentDirectory: URL? = nil) async -> ProcessResult {
        await run(push, input: input, attachmentDirectory: attachmentDirectory, checked: nil)
    }

    /// Runs a push read and checked ahead (`readAhead(_:)`): its checks are not made again.
    public func run(_ readAhead: ReadAhead, input: String, attachmentDirectory: URL? = nil) async -> ProcessResult {
        await run(readAhead.push, input: input, attachmentDirectory: attachmentDirectory, checked: readAhead)
    }

    @available(*, deprecated, renamed: "run(file:attachmentDirectory:readAhead:)")
    public func process(file: URL, attachmentDirectory: URL? = nil, readAhead: ReadAhead? = nil) async -> ProcessResult {
        await run(file: file, attachmentDirectory: attachmentDirectory, readAhead: readAhead)
    }

    @available(*, deprecated, renamed: "run(_:input:attachmentDirectory:)")
    public func process(_ push: ReceivedPush, input: String, attachmentDirectory: URL? = nil) async -> ProcessResult {
        await run(push, input: input, attachmentDirectory: attachmentDirectory)
    }

    /// A push read and checked before its turn, its download started: what `run(file:readAhead:)` takes instead
    /// of reading and checking the file again. A class, so a push waiting on the network holds a reference to it.
    public final class ReadAhead: Sendable {
        public let push: ReceivedPush
        /// What the checks found: `nse serve` answers the request from these, the push's run then reuses them.
        public let checks: CheckReport
        /// The extension runner's plan, when the extension will run, and the content it was made from: the push's
        /// turn hands the same content to the extension rather than converting the push again.
        let plan: ExtensionPlan?
        let original: NotificationContent?
        let readMilliseconds: Double
        let lintMilliseconds: Double
        /// The run waits on nothing: it runs no extension (iOS) and downloads no image (Android), so it is CPU work
        /// alone, done in microseconds. `nse serve` delivers such a push before answering its sender.
        public let waitsOnNothing: Bool

        init(
            push: ReceivedPush, checks: CheckReport, plan: ExtensionPlan?, original: NotificationContent?, readMilliseconds: Double,
            lintMilliseconds: Double, waitsOnNothing: Bool
        ) {
            self.push = push
            self.checks = checks
            self.plan = plan
            self.original = original
            self.readMilliseconds = readMilliseconds
            self.lintMilliseconds = lintMilliseconds
            self.waitsOnNothing = waitsOnNothing
        }
    }

    /// Reads and checks the push in `file` before its turn, as `run(file:)` would, and starts through the batch's
    /// cache the download its extension is certain to make (`ExtensionPlan.download`), so that the push,
    /// processed later, finds it in flight or done. No download starts without a cache, for a push iOS would not run
    /// the extension for, or when the extension's download cannot be known before it runs. nil: the file could not
    /// be read (its turn reads it again and reports why).
    public func readAhead(file: URL) -> ReadAhead? {
        let started = clock.now
        guard let push = try? PushReader.read(file) else { return nil }
        return readAhead(push, readMilliseconds: started.duration(to: clock.now).milliseconds)
    }

    /// Checks a push already read, as its run would, before its turn (and starts its download as
    /// `readAhead(file:)` does): `nse serve` answers the sender from these checks, then runs the push with them.
    public func readAhead(_ push: ReceivedPush) -> ReadAhead {
        readAhead(push, readMilliseconds: 0)
    }

    private func readAhead(_ push: ReceivedPush, readMilliseconds: Double) -> ReadAhead {
        let checked = clock.now
        let checks = check(push)
        let original = platform.includesIOS && checks.runsExtension ? NotificationContent(push) : nil
        let plan = original.map { extensionRunner.plan(for: $0, checks: checks, profile: profile) }
        let readAhead = ReadAhead(
            push: push, checks: checks, plan: plan, original: original, readMilliseconds: readMilliseconds,
            lintMilliseconds: checked.duration(to: clock.now).milliseconds,
            waitsOnNothing: original == nil && !(platform.includesAndroid && Self.fetchesAndroidImage(push, checks: checks)))
        if let mediaCache, let planned = plan?.download {
            mediaCache.prefetch(planned, using: fetcher, deadline: clock.now + profile.timeBudget)
        }
        return readAhead
    }

    /// `checked`: the push's checks already made, and how long they took.
    private func run(_ push: ReceivedPush, input: String, attachmentDirectory: URL?, checked: ReadAhead?) async -> ProcessResult {
        // Registered for the whole push, decoding included: a run measuring process-wide memory must know of it.
        let exclusive = extensionRunner.needsProcessAlone
        await ConcurrentRuns.shared.enter(exclusive: exclusive)
        defer { ConcurrentRuns.shared.leave(exclusive: exclusive) }
        let started = clock.now
        let checks = checked?.checks ?? check(push)
        let lint = checked?.lintMilliseconds ?? started.duration(to: clock.now).milliseconds
        var result = ProcessResult(
            input: input, inputKind: push.kind, extensionInvoked: false, outcome: .rejected, imageShown: false,
            content: nil, diagnostics: checks.diagnostics, timings: ["lint": lint])
        if platform.includesIOS {
            result.destination = checks.destination
            await emulate(
                push, checks: checks, planned: checked.flatMap { ahead in ahead.plan.map { ($0, ahead.original) } }, into: &result,
                attachmentDirectory: attachmentDirectory)
        } else {
            result.outcome = checks.refused ? .rejected : .notEmulated
        }
        if platform.includesAndroid {
            let androidStarted = clock.now
            result.android = await verifyAndroid(push, refused: checks.refusedByFCM, attachmentDirectory: attachmentDirectory)
            result.timings["android"] = androidStarted.duration(to: clock.now).milliseconds
        }
        // Checks made ahead of the push's turn count in its total as if made now.
        result.timings["total"] = started.duration(to: clock.now).milliseconds + (checked?.lintMilliseconds ?? 0)
        return result
    }

    /// The delivery checks, out of line like the steps around the extension's run (below).
    @inline(never)
    private func check(_ push: ReceivedPush) -> CheckReport {
        PushChecks.run(push, options: CheckOptions(
            platform: platform, profile: profile, changesContent: extensionRunner.changesContent, forecastsMedia: false))
    }

    /// Whether `verifyAndroid` may download: the message reaches Android, FCM does not refuse it, and
    /// `AndroidImageCheck` downloads for it.
    private static func fetchesAndroidImage(_ push: ReceivedPush, checks: CheckReport) -> Bool {
        guard let message = push.fcmMessage, !checks.refusedByFCM else { return false }
        return AndroidImageCheck.downloads(message)
    }

    /// The Android side; the image the notification shows is kept in `attachmentDirectory`, as iOS attachments are.
    private func verifyAndroid(_ push: ReceivedPush, refused: Bool, attachmentDirectory: URL?) async -> AndroidResult {
        guard let message = push.fcmMessage else {
            return AndroidResult(notification: nil, data: [:], diagnostics: [.warning(.androidNotFCM, "This is an APNs payload, which reaches only iOS: there is no Android side to verify. Give an FCM HTTP v1 message to check Android.")])
        }
        guard !refused else {
            // FCM refuses the whole request (reported above): nothing reaches Android either.
            let android = FCMResolver.resolveForAndroid(message)
            return AndroidResult(notification: android.notification, data: android.data, imageURL: android.image)
        }
        var check = AndroidImageCheck(hostMapping: hostMapping, limits: profile.imageLimits, budget: androidBudget)
        check.transport = transport
        check.clock = clock
        check.files = files
        return await check.verify(message, keepingImageIn: attachmentDirectory)
    }

    /// The iOS side after the checks: nothing when refused, nothing in Notification Center for another
    /// receiver, the payload's own content when the extension does not run, else the extension.
    /// `planned`: the plan made ahead of the push's turn, with the content it was made from.
    private func emulate(
        _ push: ReceivedPush, checks: CheckReport, planned: (plan: ExtensionPlan, original: NotificationContent?)?, into result: inout ProcessResult,
        attachmentDirectory: URL?
    ) async {
        guard !checks.refused else { return }
        guard checks.destination.presentsNotification else {
            result.outcome = .notDisplayed
            return
        }
        let original = planned?.original ?? NotificationContent(push)
        guard checks.runsExtension else {
            result.outcome = .original
            result.content = original
            return
        }
        result.extensionInvoked = true
        await runExtension(original: original, checks: checks, plan: planned?.plan, into: &result, attachmentDirectory: attachmentDirectory)
    }

    private func runExtension(
        original: NotificationContent, checks: CheckReport, plan: ExtensionPlan?, into result: inout ProcessResult, attachmentDirectory: URL?
    ) async {
        let context = extensionContext(diagnostics: &result.diagnostics)
        defer { if workFolder == nil { files.remove(context.workDirectory) } }
        var state = ExtensionState(original: original)
        state.plan = plan ?? extensionRunner.plan(for: original, checks: checks, profile: profile)
        let started = clock.now
        let delivery = await extensionRunner.run(&state, context: context)
        Self.record(state, ranFor: started.duration(to: clock.now), into: &result)
        guard delivery != .neverDelivered else {
            result.outcome = .original
            result.content = original
            return
        }
        let validationStarted = clock.now
        let validation = await validate(state.stagedAttachments)
        deliver(state, delivery, validation: validation, since: validationStarted, into: &result, attachmentDirectory: attachmentDirectory)
    }

    // The steps around the extension's run are out of line on purpose: what an async function holds on its
    // frame, every push waiting on the network holds.

    /// The extension's context, its time budget starting now, in the run's working folder (a new one when the
    /// pipeline was given none).
    @inline(never)
    private func extensionContext(diagnostics: inout [Diagnostic]) -> ExtensionContext {
        let workDirectory = workFolder ?? files.newWorkFolder()
        if workFolder == nil {
            do {
                try files.makeFolder(workDirectory)
            } catch {
                diagnostics.append(.error(.mediaNotSaved, "Cannot create a working folder in \(files.root.path): \(error.localizedDescription)."))
            }
        }
        var context = ExtensionContext(profile: profile, deadline: clock.now + profile.timeBudget, fetcher: fetcher, workDirectory: workDirectory)
        context.clock = clock
        return context
    }

    /// What the extension's run tells the result, whatever it delivered.
    @inline(never)
    private static func record(_ state: ExtensionState, ranFor duration: Duration, into result: inout ProcessResult) {
        result.timings["extension"] = duration.milliseconds
        for (part, milliseconds) in state.timings { result.timings["extension.\(part)"] = milliseconds }
        result.diagnostics += state.diagnostics
        result.extensionMemoryBytes = state.memoryPeakBytes
        result.extensionActivity = state.activity.isEmpty ? nil : state.activity
        result.helper = state.helper
    }

    /// The delivered content with the attachments validation kept, saved to `attachmentDirectory`.
    @inline(never)
    private func deliver(
        _ state: ExtensionState, _ delivery: ExtensionDelivery, validation: (kept: [Attachment], diagnostics: [Diagnostic]),
        since validationStarted: ContinuousClock.Instant, into result: inout ProcessResult, attachmentDirectory: URL?
    ) {
        var content = state.bestAttemptContent
        result.diagnostics += validation.diagnostics
        // A batch shares validations between pushes with the same file; the thumbnail options are this push's own.
        let kept = validation.kept.map { attachment in
            var own = attachment
            own.thumbnail = state.stagedAttachments.first { $0.attachment.identifier == attachment.identifier }?.attachment.thumbnail
            return own
        }
        content.attachments = save(kept, staged: state.stagedAttachments, to: attachmentDirectory, diagnostics: &result.diagnostics)
        result.imageShown = !content.attachments.isEmpty
        if delivery == .expired {
            result.outcome = .bestAttempt
        } else {
            result.outcome = state.mediaRequested && !result.imageShown ? .modifiedWithoutAttachment : .modified
        }
        result.timings["validation"] = validationStarted.duration(to: clock.now).milliseconds
        result.content = content
    }

    private var fetcher: MediaFetcher {
        var fetcher = MediaFetcher(profile: profile, hostMapping: hostMapping)
        fetcher.transport = transport
        fetcher.cache = mediaCache
        fetcher.cancellation = transferCancellation
        return fetcher
    }

    /// Decodes off the cooperative pool: through the batch's cache (once per file, on its decoding threads),
    /// or on a thread of its own.
    private func validate(_ staged: [StagedAttachment]) async -> (kept: [Attachment], diagnostics: [Diagnostic]) {
        guard let mediaCache else {
            let profile = profile
            return await BlockingExecutor.shared.run("nse.validate") { SystemValidation.validate(staged, profile: profile) }
        }
        return await mediaCache.validation(of: staged, profile: profile)
    }

    /// Moves kept attachment files into `directory` (atomically) and records where they are.
    private func save(_ kept: [Attachment], staged: [StagedAttachment], to directory: URL?, diagnostics: inout [Diagnostic]) -> [Attachment] {
        guard let directory else { return kept }
        return kept.enumerated().map { index, attachment in
            guard let source = staged.first(where: { $0.attachment.identifier == attachment.identifier })?.localFile else {
                return attachment
            }
            var saved = attachment
            // Several attachments may share a file name; number them so none replaces another.
            let name = kept.count > 1 ? "\(index + 1)-\(source.lastPathComponent)" : source.lastPathComponent
            // `appending(path:)`: `appendingPathComponent` would stat the path to learn whether it is a folder.
            let destination = directory.appending(path: name, directoryHint: .notDirectory)
            do {
                try files.move(source, to: destination)
                saved.file = destination.relativePath
            } catch {
                diagnostics.append(.warning(.mediaNotSaved, "The attachment could not be saved to \(destination.path): \(error.localizedDescription). The verdict is unaffected."))
            }
            return saved
        }
    }
}

/// The pipeline's former name: code written against it compiles unchanged.
@available(*, deprecated, renamed: "Pipeline")
public typealias Emulator = Pipeline
