import Foundation
import NSEConcurrency
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization

/// One harness run as the UserNotifications and Firebase stand-ins see it: the time budget, the network
/// settings, and where findings go. Shared by the extension's threads; its mutable state is in one `Mutex`.
package final class ExtensionEnvironment: Sendable {
    package let context: ExtensionContext
    private struct State {
        var findings: [Diagnostic] = []
        var attachmentAttempted = false
        var imageRequested = false
        var helpersRunning = 0
        /// Milliseconds spent in named parts of helpers' work ("download").
        var partTimings: [String: Double] = [:]
        var lifetime: ContinuousClock.Instant?
        var bundleFolder: URL?
        var ended = false
        var inFlight: [ObjectIdentifier: (transfer: TransferCancellation, request: ExtensionRequest, started: ContinuousClock.Instant)] = [:]
        var sharedSession: (any AnyObject & Sendable)?
        var observed = ExtensionActivity()
        var chargedBytes = 0
        var chargedPeak = 0
        var categories: Set<UNNotificationCategory> = []
        var crashFinding: Diagnostic?
        var crashWatchers: [@Sendable () -> Void] = []
        var workFoldersHandedOut = 0
        var standInValues: [String: any Sendable] = [:]
        var plannedImage: FirebaseImageHelper.Decision?
    }

    private let state = Mutex(State())

    /// When iOS handed the extension its request: activity times are counted from here.
    package let started: ContinuousClock.Instant

    package init(context: ExtensionContext, started: ContinuousClock.Instant? = nil) {
        self.context = context
        self.started = started ?? context.clock.now
    }

    /// Now on the run's clock (`ExtensionContext.clock`): what the run's times are measured and judged on.
    package var now: ContinuousClock.Instant { context.clock.now }

    /// The environment of a harness run, for a run's code that gets no content to find it from
    /// (`UNNotificationAttachment(identifier:url:options:)`, `URLSession`, `os_log`): set per thread by the harness
    /// and by the stand-ins' callback threads. A thread the extension starts itself (a dispatch queue) has none:
    /// guessing the run there would mix up runs of parallel tests, and code outside any run.
    package static var current: ExtensionEnvironment? {
        get { Thread.current.threadDictionary[key] as? ExtensionEnvironment ?? taskCurrent }
        set { Thread.current.threadDictionary[key] = newValue }
    }

    /// The same, for Swift tasks: a `Task { }` the extension starts in `didReceive` inherits it, so its
    /// `try await URLSession.shared.download(from:)` is the run's.
    @TaskLocal private static var taskCurrent: ExtensionEnvironment?

    private static let key = "nse.extension-environment"

    /// Runs `body` with `self` as the current thread's environment.
    package func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        let previous = Thread.current.threadDictionary[Self.key]
        Thread.current.threadDictionary[Self.key] = self
        defer { Thread.current.threadDictionary[Self.key] = previous }
        return try Self.$taskCurrent.withValue(self) { try body() }
    }

    package func record(_ diagnostic: Diagnostic) {
        state.withLock { $0.findings.append(diagnostic) }
    }

    package func record(_ diagnostics: [Diagnostic]) {
        state.withLock { $0.findings += diagnostics }
    }

    package var diagnostics: [Diagnostic] { state.withLock { $0.findings } }

    /// Milliseconds spent in named parts of helpers' work ("download").
    package var timings: [String: Double] { state.withLock { $0.partTimings } }

    package func record(timings: [String: Double]) {
        state.withLock { $0.partTimings.merge(timings) { _, new in new } }
    }

    package func noteAttachmentAttempt() {
        state.withLock { $0.attachmentAttempted = true }
    }

    package func noteImageRequested() {
        state.withLock { $0.imageRequested = true }
    }

    /// The extension asked for media (an image key, or an attachment it tried to create).
    package var mediaRequested: Bool { state.withLock { $0.attachmentAttempted || $0.imageRequested } }

    /// Runs a helper's background work (a download, then the handler call) on the executor, as iOS runs
    /// URLSession callbacks on a queue of their own, and counts it so the harness can wait for its findings.
    package func helper(_ name: String, _ work: @escaping @Sendable () -> Void) {
        helper(name) { (done: @escaping @Sendable () -> Void) in
            work()
            done()
        }
    }

    /// The same, for work that finishes through a callback (a download on the network thread, then the handler
    /// call): `work` calls `done` once, from any thread, when the helper has finished. No thread waits meanwhile.
    package func helper(_ name: String, _ work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        state.withLock { $0.helpersRunning += 1 }
        BlockingExecutor.shared.execute(name) {
            work {
                let idle: Bool = self.state.withLock { state in
                    state.helpersRunning -= 1
                    return state.helpersRunning == 0
                }
                if idle { self.helpersIdle.notify() }
            }
        }
    }

    /// Woken when the last helper running finishes.
    private let helpersIdle = EventWaiters()

    /// Waits until every helper has finished, or `deadline`: woken by the last helper, not by polling.
    package func waitForHelpers(until deadline: ContinuousClock.Instant) async {
        await context.clock.wait(on: helpersIdle, until: deadline) { self.state.withLock { $0.helpersRunning == 0 } }
    }

    // MARK: The extension's life and its transfers

    /// When iOS ends the extension at the latest: the budget plus the grace after the expiry call. Transfers
    /// still running then die with it.
    package var lifetimeEnd: ContinuousClock.Instant {
        get { state.withLock { $0.lifetime ?? context.deadline + .seconds(1) } }
        set { state.withLock { $0.lifetime = newValue } }
    }

    /// The folder that stands for the app's bundle (its images by name), if the run was given one.
    package var bundleDirectory: URL? {
        get { state.withLock { $0.bundleFolder } }
        set { state.withLock { $0.bundleFolder = newValue } }
    }

    /// Firebase's helper's decision on the push's image request, made in the built-in extension's plan from the
    /// checks' reading of the push: the `FirebaseMessaging` stand-in takes it (once) instead of reading the payload
    /// again. Nil for an app's own extension, whose code may change the content before it calls the helper.
    package var plannedImage: FirebaseImageHelper.Decision? {
        get { state.withLock { $0.plannedImage } }
        set { state.withLock { $0.plannedImage = newValue } }
    }

    /// The planned decision, handed out once: a second call of the helper in the same run reads its content.
    package func takePlannedImage() -> FirebaseImageHelper.Decision? {
        state.withLock { state in
            defer { state.plannedImage = nil }
            return state.plannedImage
        }
    }

    /// True once the harness has finished the run: the extension's process is gone on a device.
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// Registers a request in progress, so the end of the run aborts it and records it as unfinished; false when
    /// the run has already ended (the extension is gone: nothing may start).
    package func track(_ transfer: TransferCancellation, as request: ExtensionRequest, startedAt started: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.inFlight[ObjectIdentifier(transfer)] = (transfer, request, started)
            return true
        }
    }

    /// Takes a request off the in-progress list; false when the end of the run already recorded it as
    /// unfinished, so its completion must not run.
    package func untrack(_ transfer: TransferCancellation) -> Bool {
        state.withLock { $0.inFlight.removeValue(forKey: ObjectIdentifier(transfer)) != nil }
    }

    /// Ends the run: every request still in progress is recorded as unfinished and aborted, as iOS kills the
    /// extension's process with its transfers.
    package func endRun() {
        let now = self.now
        let running = state.withLock { state in
            state.ended = true
            // The shared session holds this environment: dropping it here ends the cycle, which leaked every run's
            // environment and session (LeakSanitizer, `make test-asan`). So do the crash watchers: the harness's
            // holds the content handed over, which holds this environment (a batch kept every push's run).
            state.sharedSession = nil
            state.crashWatchers = []
            // An SDK stand-in's values (Customer.io's push in progress) hold this environment too.
            state.standInValues = [:]
            defer { state.inFlight = [:] }
            for (_, request, started) in state.inFlight.values {
                var unfinished = request
                unfinished.outcome = .unfinished
                unfinished.milliseconds = started.duration(to: now).milliseconds
                if state.observed.requests.count < Self.activityLimit { state.observed.requests.append(unfinished) }
            }
            return state.inFlight.values.map(\.transfer)
        }
        running.forEach { $0.cancel() }
    }

    /// `URLSession.shared` of this run: made by `make` on first use, the same object afterwards.
    package func sharedSession(orMake make: () -> any AnyObject & Sendable) -> any AnyObject & Sendable {
        state.withLock { state in
            if let sharedSession = state.sharedSession { return sharedSession }
            let made = make()
            // After the run, a session is not kept: nothing would drop it again (see endRun).
            if !state.ended { state.sharedSession = made }
            return made
        }
    }

    /// For stand-in code used outside any harness run: a default device and budget from now, no host mapping.
    /// Its folder is one per process, made only if something is written there (download tasks' `.tmp` files,
    /// each deleted after its handler), so calls outside a run leave no folder per call.
    package static func standalone() -> ExtensionEnvironment {
        let profile = DeviceProfile()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-standalone-\(getpid())")
        return ExtensionEnvironment(context: ExtensionContext(
            profile: profile, deadline: .now + profile.timeBudget, fetcher: MediaFetcher(profile: profile), workDirectory: folder))
    }

    // MARK: What the extension did (ExtensionActivity in the result)

    /// Entries kept per list: an extension logging in a loop must not exhaust the test's memory.
    package static let activityLimit = 10_000

    /// Milliseconds from the start of the run to `instant`.
    package func milliseconds(at instant: ContinuousClock.Instant? = nil) -> Double {
        started.duration(to: instant ?? now).milliseconds
    }

    /// A line the extension logged. The `os`/`OSLog` stand-ins, `NSLog` and `print` replacements call this.
    package func log(_ line: ExtensionLogLine) {
        state.withLock { state in
            guard state.observed.log.count < Self.activityLimit else { return }
            state.observed.log.append(line)
        }
    }

    /// A line the extension logged now.
    package func log(_ level: ExtensionLogLine.Level, _ message: String, source: String, subsystem: String? = nil, category: String? = nil) {
        log(ExtensionLogLine(milliseconds: milliseconds(), source: source, level: level, subsystem: subsystem, category: category, message: message))
    }

    /// A file one of the extension's APIs created, wrote, moved, removed or attached, now.
    package func noteFile(_ url: URL, _ action: ExtensionFile.Action, by api: String) {
        let size = FileSize.of(url)
        let entry = ExtensionFile(milliseconds: milliseconds(), path: url.path, action: action, bytes: action == .removed ? nil : size, by: api)
        state.withLock { state in
            guard state.observed.files.count < Self.activityLimit else { return }
            state.observed.files.append(entry)
        }
    }

    /// A request the extension made, once it has ended (or when the run ends with it unfinished).
    package func record(_ request: ExtensionRequest) {
        state.withLock { state in
            guard state.observed.requests.count < Self.activityLimit else { return }
            state.observed.requests.append(request)
        }
    }

    /// Everything recorded so far, requests in the order they started.
    package var activity: ExtensionActivity {
        var activity = state.withLock { $0.observed }
        activity.requests.sort { $0.startMilliseconds < $1.startMilliseconds }
        return activity
    }

    // MARK: Memory the stand-ins hold for the run

    /// Counts `bytes` the stand-ins hold on the extension's behalf (a decoded bitmap, a response body kept in
    /// memory) against this run, until `releaseMemory(bytes:)`. Exact per run, even when runs overlap.
    package func chargeMemory(bytes: Int) {
        state.withLock { state in
            state.chargedBytes += max(0, bytes)
            state.chargedPeak = max(state.chargedPeak, state.chargedBytes)
        }
    }

    package func releaseMemory(bytes: Int) {
        state.withLock { $0.chargedBytes = max(0, $0.chargedBytes - max(0, bytes)) }
    }

    /// The most the stand-ins held for this run at once.
    package var accountedMemoryPeak: Int { state.withLock { $0.chargedPeak } }

    // MARK: The app's container

    /// The run's own sandbox folder for the app-group container (`FileManager.containerURL(...)`,
    /// `UserDefaults(suiteName:)`): inside the run's working folder, so it goes with it; the harness copies the
    /// test's seed folder into it before the extension starts.
    package var containerDirectory: URL {
        let folder = context.workDirectory.appendingPathComponent("Container", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    // MARK: The app's notification categories and a crash of the extension's process

    /// What `UNUserNotificationCenter.setNotificationCategories(_:)` last registered in this run (empty at first:
    /// the emulated app has registered none).
    package var notificationCategories: Set<UNNotificationCategory> {
        get { state.withLock { $0.categories } }
        set { state.withLock { $0.categories = newValue } }
    }

    /// An SDK stand-in reached code that crashes the extension's process on a device (an Objective-C exception,
    /// a force unwrap of nil): the finding is recorded and the harness ends the run, iOS showing the original
    /// content. The caller returns without calling the content handler, as the dead process would.
    package func crash(_ finding: Diagnostic) {
        let watchers: [@Sendable () -> Void] = state.withLock { state in
            guard state.crashFinding == nil else { return [] }
            state.crashFinding = finding
            state.findings.append(finding)
            return state.crashWatchers
        }
        watchers.forEach { $0() }
    }

    /// True once `crash(_:)` was called.
    package var crashed: Bool { state.withLock { $0.crashFinding != nil } }

    /// Calls `watcher` when the extension crashes (at once if it already has).
    package func onCrash(_ watcher: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            if state.crashFinding == nil { state.crashWatchers.append(watcher) }
            return state.crashFinding != nil
        }
        if already { watcher() }
    }

    /// A folder of its own for one helper call's files: the run's working folder for the first call (the usual
    /// case, and one folder fewer to create per push), a fresh folder inside it for any later call.
    package func makeWorkFolder() -> URL {
        let first = state.withLock { state in
            defer { state.workFoldersHandedOut += 1 }
            return state.workFoldersHandedOut == 0
        }
        if first { return context.workDirectory }
        let folder = context.workDirectory.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    // MARK: What an SDK stand-in keeps for one run

    /// A value an SDK stand-in keeps for this run only (Customer.io's configuration and pushes in progress): one run's
    /// state must not reach the runs of tests going on in parallel, as a process-wide singleton would.
    package func standInValue<Value: Sendable>(_ key: String, as type: Value.Type = Value.self) -> Value? {
        state.withLock { $0.standInValues[key] as? Value }
    }

    /// Changes the value under `key` atomically; `change` runs with the lock held, so it must not call back.
    package func updateStandInValue<Value: Sendable, Result>(_ key: String, default value: Value, _ change: (inout Value) -> Result) -> Result {
        state.withLock { state in
            var current = state.standInValues[key] as? Value ?? value
            defer { state.standInValues[key] = current }
            return change(&current)
        }
    }
}
