import Foundation
import NSEConcurrency
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization
import UserNotifications

/// How the harness measures an extension's memory.
public enum MemoryMeasurement: Sendable, Equatable {
    /// Not measured, not judged.
    case off
    /// Memory the stand-ins hold for the run (decoded images, bodies kept in memory) always; the process's
    /// resident growth only when no other run overlapped this one (else reported "not measured"). Right for a
    /// parallel test suite: never a false `extension.memory-limit` from another test's run.
    case whenAlone
    /// As `whenAlone`, but the run waits until no other run is in progress and holds new ones back until it is
    /// done, so the process's growth is always measured: for the tests that check memory. Other work in the
    /// process (the suite's other tests) still moves the figure: memory it frees during the run hides as much of
    /// the extension's growth, so a test that relies on the verdict runs in a process of its own.
    case exclusive
}

/// Runs a `UNNotificationServiceExtension` subclass the way iOS does: `didReceive` on a thread of its own,
/// `serviceExtensionTimeWillExpire()` when the budget runs out, a short grace for the handler after that,
/// and the original content if the handler is never called.
public struct HarnessRunner: ExtensionRunner {
    private let makeExtension: @Sendable () -> UNNotificationServiceExtension
    /// How long iOS waits for the handler after `serviceExtensionTimeWillExpire()`: undocumented, "briefly".
    public var expiryGrace: Duration
    public var memoryMeasurement: MemoryMeasurement
    public let changesContent: Bool
    /// Put what the extension did (requests, log, files, handler calls, memory) in the result: for an app's own
    /// extension, not for the command line's built-in one.
    public var reportsActivity = true
    /// A folder whose contents are copied into the run's app-group container before the extension starts.
    public var containerSeed: URL?
    /// The folder standing for the app's bundle: `UIImage(named:)` and `INImage(named:)` find images there.
    public var bundleDirectory: URL?

    public var needsProcessAlone: Bool { memoryMeasurement == .exclusive }

    public init(
        expiryGrace: Duration = .seconds(1), memoryMeasurement: MemoryMeasurement = .whenAlone, changesContent: Bool = false,
        makeExtension: @escaping @Sendable () -> UNNotificationServiceExtension
    ) {
        self.makeExtension = makeExtension
        self.expiryGrace = expiryGrace
        self.memoryMeasurement = memoryMeasurement
        self.changesContent = changesContent
    }

    public func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
        let environment = ExtensionEnvironment(context: context)
        // Transfers die with the extension: at the latest when the grace after the expiry call is over.
        environment.lifetimeEnd = context.deadline + expiryGrace
        defer { environment.endRun() }
        for note in context.profile.transportSecurity.notes {
            state.diagnostics.append(.warning(.extensionInfoPlist, "The extension's Info.plist: \(note)."))
        }
        if let containerSeed { seedContainer(environment, from: containerSeed, diagnostics: &state.diagnostics) }
        environment.bundleDirectory = bundleDirectory
        environment.plannedImage = state.plan.image
        let request = UNNotificationRequest(
            identifier: UUID().uuidString, content: UNNotificationContent(state.original, environment: environment),
            trigger: UNPushNotificationTrigger())
        let handler = ContentHandlerRecorder(dataStore: AttachmentDataStore(folder: context.workDirectory), clock: context.clock)
        // A crash (an SDK stand-in reaching code that raises on a device) ends the wait at once.
        environment.onCrash { handler.noteCrash() }
        // Made with the run current, so a session the extension makes in its initializer belongs to the run.
        let instance = Unshared(environment.withCurrent { makeExtension() })
        let memory = ProcessMemoryWatch(memoryMeasurement)

        let deadline = context.deadline
        // On the executor: a `didReceive` that blocks holds its own worker only, never another push's or the
        // expiry call's.
        BlockingExecutor.shared.execute("nse.didReceive") {
            environment.withCurrent {
                instance.value.didReceive(request) { handler.record($0) }
            }
            handler.noteDidReceiveReturned()
        }
        // The budget is kept by the run's clock: the system's on the executor's timer thread, so a busy cooperative
        // pool cannot delay the expiry call; a unit test's manual clock when time reaches the deadline.
        let expiry = context.clock.schedule(at: deadline, "nse.serviceExtensionTimeWillExpire") {
            guard !handler.calledInTime(deadline), !handler.hasCrashed else { return }
            handler.noteExpiryCalled()
            environment.withCurrent { instance.value.serviceExtensionTimeWillExpire() }
            handler.noteExpiryReturned()
        }
        defer { expiry.cancel() }
        // Calls are judged by when they happened, not by when this task gets to look.
        let delivered = await handler.waitForFirst(until: deadline + expiryGrace)
        let firstCall = handler.firstCall
        let expired = handler.firstCallLate(deadline) ?? true
        // iOS ends the extension once it has delivered (or its grace after the expiry call has passed): calls
        // made later never reach it, however late this task looks at them.
        let end = min(deadline, firstCall ?? deadline) + expiryGrace
        environment.lifetimeEnd = end
        if environment.crashed {
            // The process is gone: nothing it started finishes, and iOS shows the original content.
            environment.endRun()
            state.diagnostics += environment.diagnostics
            state.mediaRequested = environment.mediaRequested
            if reportsActivity { state.activity = environment.activity }
            return .neverDelivered
        }
        if expired {
            // Let the expiry call return (its own handler call may come after one from a callback it set off, such
            // as a download it cancelled) and helpers that gave up at the same deadline record why, before their
            // findings are read.
            await handler.waitForExpiryReturn(until: end)
            await environment.waitForHelpers(until: end)
        } else if reportsActivity {
            // A second call usually follows the first in the same synchronous code, or in a callback still running:
            // wait for both (bounded by `end`) so the count does not depend on how fast this task got here. The
            // built-in extension calls once, from its helper, and a batch should not wait for it.
            await handler.waitForReturn(until: end)
            await environment.waitForHelpers(until: end)
        }
        // iOS ends the extension here: requests still running are recorded as unfinished and die with it.
        environment.endRun()
        state.diagnostics += environment.diagnostics
        state.timings.merge(environment.timings) { _, new in new }
        state.mediaRequested = environment.mediaRequested
        let measured = memory.finish(accountedPeak: environment.accountedMemoryPeak)
        state.memoryPeakBytes = measured.map(\.judgedBytes)
        if reportsActivity {
            state.activity = environment.activity
            state.activity.handlerCalls = handler.calls(through: end, since: environment.started, used: delivered != nil)
            state.activity.memory = measured
        }
        // An expiry call that delivers an attachment is judged once the attachment's file is known to be there.
        let expiryAttaches = expired && delivered.map { !$0.stagedAttachments.isEmpty } ?? false
        if expired, !expiryAttaches {
            state.diagnostics.append(ExpiryFindings.timeExpired(budget: context.profile.timeBudget))
        }

        let calls = handler.count(through: end)
        if calls > 1 {
            state.diagnostics.append(.warning(.extensionHandlerCalledTwice, "The content handler was called \(calls) times. iOS uses the first call and ignores the rest; call it exactly once."))
        }
        if let peak = state.memoryPeakBytes, peak > context.profile.memoryLimit {
            state.diagnostics.append(.error(.extensionMemoryLimit, "The extension's memory grew by \(peak / 1_048_576) MB, over the \(context.profile.memoryLimit / 1_048_576) MB iOS allows: iOS kills it without calling serviceExtensionTimeWillExpire(), and the original content is shown. Avoid decoding or holding large images in the extension."))
            return .neverDelivered
        }
        guard let content = delivered else {
            state.diagnostics.append(.error(.extensionHandlerNotCalled, "The content handler was never called, not even from serviceExtensionTimeWillExpire(): iOS shows the original content. Call contentHandler(bestAttemptContent) on every path."))
            return .neverDelivered
        }
        state.bestAttemptContent = content.notificationContent
        state.stagedAttachments = content.stagedAttachments.filter { staged in
            guard FileManager.default.fileExists(atPath: staged.localFile.path) else {
                state.diagnostics.append(.error(.mediaAttachmentMissing, "The attachment file \(staged.localFile.lastPathComponent) was gone when the content was delivered: iOS cannot move it into its data store (UNError 104) and shows the notification without it. Keep attachment files until the handler is called."))
                return false
            }
            return true
        }
        state.bestAttemptContent.attachments = state.stagedAttachments.map(\.attachment)
        if reportsActivity, state.stagedAttachments.isEmpty,
           let download = state.activity.requests.first(where: { $0.method == "GET" }) {
            // nse cannot know an app's own image key, but an extension that downloads and attaches nothing shows
            // no image: the download is the request for one.
            state.mediaRequested = true
            let why = download.status.map { "got HTTP \($0)" } ?? "ended \(download.outcome.rawValue)"
            // Said only where nothing else says it: an ATS refusal or a network error is already an error.
            if !state.diagnostics.contains(where: { $0.severity == .error }) {
                state.diagnostics.append(.error(.extensionNoAttachment, "The extension downloaded \(download.url) (its request \(why)) but delivered no attachment: the notification shows without an image. The extension's requests and log say why."))
            }
        }
        if expiryAttaches {
            state.diagnostics.append(state.stagedAttachments.isEmpty
                ? ExpiryFindings.timeExpired(budget: context.profile.timeBudget)
                : ExpiryFindings.deliveredLate(budget: context.profile.timeBudget))
        }
        return expired ? .expired : .delivered
    }

    /// The first entry under `seed` that is neither a regular file, a folder nor a symbolic link (which is copied
    /// as a link), with what it is.
    static func firstUncopiableEntry(under seed: URL) -> (String, RegularFile.FileKind)? {
        guard let walker = FileManager.default.enumerator(atPath: seed.path) else { return nil }
        for case let relative as String in walker {
            let path = seed.appending(path: relative).path
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK, let kind = RegularFile.FileKind(mode: info.st_mode), kind != .folder else { continue }
            return (path, kind)
        }
        return nil
    }

    private func seedContainer(_ environment: ExtensionEnvironment, from seed: URL, diagnostics: inout [Diagnostic]) {
        let container = environment.containerDirectory
        // Copying a FIFO waits for a writer for ever: the seed is checked whole before anything is copied.
        if let (path, kind) = Self.firstUncopiableEntry(under: seed) {
            diagnostics.append(.warning(.extensionContainerSeed, "The container seed \(seed.path) was not copied into the run's container: \(path): \(RegularFileError.notRegular(kind).reason(path: path)). The extension starts with an empty container."))
            return
        }
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: seed.path) {
                try FileManager.default.copyItem(at: seed.appending(path: name), to: container.appending(path: name))
            }
        } catch {
            diagnostics.append(.warning(.extensionContainerSeed, "The container seed \(seed.path) could not be copied into the run's container: \(error.localizedDescription). The extension starts with an empty container."))
        }
    }
}

/// The process's resident growth over one run, taken only when the run can know the figure is its own.
private struct ProcessMemoryWatch {
    private let mode: MemoryMeasurement
    private let observation: ConcurrentRuns.Observation?
    private let baseline: Int?

    init(_ mode: MemoryMeasurement) {
        self.mode = mode
        guard mode != .off else {
            observation = nil
            baseline = nil
            return
        }
        let observation = ConcurrentRuns.shared.observe()
        self.observation = observation
        // Resetting the peak is process-wide too: only a run that is alone may do it.
        baseline = observation.aloneAtStart ? MemoryGauge.resetPeak() : nil
    }

    func finish(accountedPeak: Int) -> ExtensionMemory? {
        guard let observation else {
            // The process figure is off, but what the stand-ins held for this run is exact and still judged.
            return accountedPeak > 0 ? ExtensionMemory(accountedPeakBytes: accountedPeak, processGrowthBytes: nil, processMeasurement: .off) : nil
        }
        guard ConcurrentRuns.shared.wasAlone(since: observation) else {
            return ExtensionMemory(accountedPeakBytes: accountedPeak, processGrowthBytes: nil, processMeasurement: .notMeasuredConcurrentRuns)
        }
        guard let baseline, let growth = MemoryGauge.growth(since: baseline) else {
            return ExtensionMemory(accountedPeakBytes: accountedPeak, processGrowthBytes: nil, processMeasurement: .unsupported)
        }
        return ExtensionMemory(accountedPeakBytes: accountedPeak, processGrowthBytes: growth, processMeasurement: .measured)
    }
}

/// The extension instance, handed to the threads iOS would call it on. Like iOS, the harness never calls it
/// from two threads at once except `serviceExtensionTimeWillExpire()` during a still-running `didReceive`,
/// which the extension must be written to tolerate on iOS too.
private struct Unshared<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// Records content handler calls, each with its own time, from any thread, and lets the harness wait for the
/// first and for `didReceive` and `serviceExtensionTimeWillExpire` to return.
final class ContentHandlerRecorder: Sendable {
    fileprivate struct State {
        var first: UNNotificationContent?
        /// When each call happened, and on which thread: judged against deadlines by the clock, not by when the
        /// waiting task runs.
        var callTimes: [(at: ContinuousClock.Instant, thread: String)] = []
        /// The first call came once the expiry call had begun: late even at the deadline's own instant (a manual
        /// clock's calls can be; the system clock's come after it).
        var firstAfterExpiryCall = false
        var expiryCalled = false
        var returned = false
        var expiryReturned = false
        /// The extension's process crashed: no call will come.
        var crashed = false
    }

    private let state = Mutex(State())
    /// Where attachment files go when the handler is called.
    let dataStore: AttachmentDataStore?
    /// Woken on every event, to look again.
    private let events = EventWaiters()
    /// The run's clock: calls are timed, and waits end, on it.
    private let clock: any PipelineClock

    init(dataStore: AttachmentDataStore? = nil, clock: any PipelineClock = SystemClock()) {
        self.dataStore = dataStore
        self.clock = clock
    }

    /// Records a call made now on the run's clock (or at `instant`).
    func record(_ content: UNNotificationContent, at instant: ContinuousClock.Instant? = nil) {
        let instant = instant ?? clock.now
        let thread = BlockingExecutor.currentJobName.map { $0.hasPrefix("nse.") ? String($0.dropFirst(4)) : $0 } ?? "extension's own thread"
        state.withLock { state in
            // Bounded: an extension calling in a loop cannot grow this without limit.
            if state.callTimes.count < ExtensionEnvironment.activityLimit { state.callTimes.append((instant, thread)) }
            guard state.first == nil else { return }
            state.firstAfterExpiryCall = state.expiryCalled
            // The phone shows the content as it was when handed over, its attachment files taken at that moment.
            let shown = content.copy() as? UNNotificationContent ?? content
            state.first = dataStore?.adopt(shown) ?? shown
        }
        events.notify()
    }

    func noteCrash() {
        state.withLock { $0.crashed = true }
        events.notify()
    }

    var hasCrashed: Bool { state.withLock { $0.crashed } }

    func noteDidReceiveReturned() {
        state.withLock { $0.returned = true }
        events.notify()
    }

    /// `serviceExtensionTimeWillExpire()` is about to be called.
    func noteExpiryCalled() {
        state.withLock { $0.expiryCalled = true }
    }

    func noteExpiryReturned() {
        state.withLock { $0.expiryReturned = true }
        events.notify()
    }

    /// When the first call happened, if it did.
    var firstCall: ContinuousClock.Instant? { state.withLock { $0.callTimes.first?.at } }

    /// Whether the first call came after `deadline` (nil: none came yet).
    func firstCallLate(_ deadline: ContinuousClock.Instant) -> Bool? {
        state.withLock { state in
            state.callTimes.first.map { $0.at > deadline || ($0.at == deadline && state.firstAfterExpiryCall) }
        }
    }

    /// The calls made by `end`, the moment iOS stops listening; later ones never happened as far as iOS knows.
    func count(through end: ContinuousClock.Instant) -> Int {
        state.withLock { $0.callTimes.filter { $0.at <= end }.count }
    }

    /// The calls made by `end`, for the result; the first is the one shown when `used`.
    func calls(through end: ContinuousClock.Instant, since start: ContinuousClock.Instant, used: Bool) -> [ContentHandlerCall] {
        state.withLock { state in
            state.callTimes.filter { $0.at <= end }.enumerated().map { index, call in
                ContentHandlerCall(milliseconds: start.duration(to: call.at).milliseconds, thread: call.thread, used: used && index == 0)
            }
        }
    }

    /// True when the first call came by `deadline`.
    func calledInTime(_ deadline: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.callTimes.first.map { $0.at <= deadline } ?? false }
    }

    /// The first content handed over by `deadline`, waiting until then at most.
    func waitForFirst(until deadline: ContinuousClock.Instant) async -> UNNotificationContent? {
        await wait(until: deadline) { $0.first != nil || $0.crashed }
        return state.withLock { state in
            guard let firstAt = state.callTimes.first?.at, firstAt <= deadline else { return nil }
            return state.first
        }
    }

    /// Waits until `didReceive` has returned, or `deadline`.
    func waitForReturn(until deadline: ContinuousClock.Instant) async {
        await wait(until: deadline) { $0.returned }
    }

    /// Waits until `serviceExtensionTimeWillExpire` has returned, or `deadline`.
    func waitForExpiryReturn(until deadline: ContinuousClock.Instant) async {
        await wait(until: deadline) { $0.expiryReturned }
    }

    private func wait(until deadline: ContinuousClock.Instant, for condition: @escaping @Sendable (State) -> Bool) async {
        await clock.wait(on: events, until: deadline) { self.state.withLock { condition($0) } }
    }
}

/// What iOS does with attachment files when the content handler is called: it takes them into its data store.
/// A file the extension deletes afterwards (a download task's .tmp, deleted when its completion returns, as
/// Batch's helper attaches it) is still shown; one deleted before the call is reported missing at delivery.
///
/// iOS moves the files (it copies only those in the app's bundle); here they are linked or copied and the original
/// is left where it was. Which files are the bundle's cannot be told on Linux: a repository checked out under /tmp
/// looks like an extension's temporary folder, and moving would delete its fixtures.
struct AttachmentDataStore: Sendable {
    /// The run's working folder, where the store's folders are (`ExtensionContext.attachmentStoreFolder`).
    let folder: URL

    /// The content with each attachment whose file exists now linked (or copied) into the store.
    func adopt(_ content: UNNotificationContent) -> UNNotificationContent {
        guard !content.fields.attachments.isEmpty else { return content }
        content.fields.attachments = content.fields.attachments.enumerated().map { index, attachment in
            var staged = attachment.staged
            // One folder per attachment keeps the file's own name, which the report shows.
            let destination = folder.appending(path: ExtensionContext.attachmentStoreFolder(index), directoryHint: .isDirectory)
                .appending(path: staged.localFile.lastPathComponent, directoryHint: .notDirectory)
            do {
                try FolderCreation.make(destination.deletingLastPathComponent())
                // link(2) itself: FileManager's linkItem reads the file's extended attributes and its owner's
                // and group's names (/etc/passwd, /etc/group) first, a dozen calls per push.
                if link(staged.localFile.path, destination.path) != 0 {
                    try FileManager.default.copyItem(at: staged.localFile, to: destination)
                }
            } catch {
                // Already gone: delivery reports it (media.attachment-missing).
                return attachment
            }
            staged.localFile = destination
            return UNNotificationAttachment(staged: staged)
        }
        return content
    }
}
