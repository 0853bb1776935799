import Foundation
import NSEBatch
import NSEConcurrency
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports
import Synchronization

/// One harness run as the UserNotifications and Firebase stand-ins see it: the time budget, the network
/// settings, and where findings go. Shared by the extension's threads; `lock` guards the mutable state.
package final class ExtensionEnvironment: @unchecked Sendable {
    package let context: ExtensionContext
    private let lock = Mutex(())
    private var findings: [Diagnostic] = []
    private var attachmentAttempted = false
    private var imageRequested = false
    private var helpersRunning = 0

    /// When iOS handed the extension its request: activity times are counted from here.
    package let started: ContinuousClock.Instant

    package init(context: ExtensionContext, started: ContinuousClock.Instant = .now) {
        self.context = context
        self.started = started
    }

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
        lock.withLock { _ in findings.append(diagnostic) }
    }

    package func record(_ diagnostics: [Diagnostic]) {
        lock.withLock { _ in findings += diagnostics }
    }

    package var diagnostics: [Diagnostic] { lock.withLock { _ in findings } }

    private var partTimings: [String: Double] = [:]

    /// Milliseconds spent in named parts of helpers' work ("download").
    package var timings: [String: Double] { lock.withLock { _ in partTimings } }

    package func record(timings: [String: Double]) {
        lock.withLock { _ in partTimings.merge(timings) { _, new in new } }
    }

    package func noteAttachmentAttempt() {
        lock.withLock { _ in attachmentAttempted = true }
    }

    package func noteImageRequested() {
        lock.withLock { _ in imageRequested = true }
    }

    /// The extension asked for media (an image key, or an attachment it tried to create).
    package var mediaRequested: Bool { lock.withLock { _ in attachmentAttempted || imageRequested } }

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
        lock.withLock { _ in helpersRunning += 1 }
        BlockingExecutor.shared.execute(name) {
            work {
                let idle: Bool = self.lock.withLock { _ in
                    self.helpersRunning -= 1
                    return self.helpersRunning == 0
                }
                if idle { self.helpersIdle.notify() }
            }
        }
    }

    /// Woken when the last helper running finishes.
    private let helpersIdle = EventWaiters()

    /// Waits until every helper has finished, or `deadline`: woken by the last helper, not by polling.
    package func waitForHelpers(until deadline: ContinuousClock.Instant) async {
        await helpersIdle.wait(until: deadline) { self.lock.withLock { _ in self.helpersRunning == 0 } }
    }

    // MARK: The extension's life and its transfers

    private var lifetime: ContinuousClock.Instant?
    private var bundleFolder: URL?
    private var ended = false
    private var inFlight: [ObjectIdentifier: (transfer: TransferCancellation, request: ExtensionRequest, started: ContinuousClock.Instant)] = [:]

    /// When iOS ends the extension at the latest: the budget plus the grace after the expiry call. Transfers
    /// still running then die with it.
    package var lifetimeEnd: ContinuousClock.Instant {
        get { lock.withLock { _ in lifetime ?? context.deadline + .seconds(1) } }
        set { lock.withLock { _ in lifetime = newValue } }
    }

    /// The folder that stands for the app's bundle (its images by name), if the run was given one.
    package var bundleDirectory: URL? {
        get { lock.withLock { _ in bundleFolder } }
        set { lock.withLock { _ in bundleFolder = newValue } }
    }

    /// True once the harness has finished the run: the extension's process is gone on a device.
    package var hasEnded: Bool { lock.withLock { _ in ended } }

    /// Registers a request in progress, so the end of the run aborts it and records it as unfinished; false when
    /// the run has already ended (the extension is gone: nothing may start).
    package func track(_ transfer: TransferCancellation, as request: ExtensionRequest, startedAt started: ContinuousClock.Instant) -> Bool {
        lock.withLock { _ in
            guard !ended else { return false }
            inFlight[ObjectIdentifier(transfer)] = (transfer, request, started)
            return true
        }
    }

    /// Takes a request off the in-progress list; false when the end of the run already recorded it as
    /// unfinished, so its completion must not run.
    package func untrack(_ transfer: TransferCancellation) -> Bool {
        lock.withLock { _ in inFlight.removeValue(forKey: ObjectIdentifier(transfer)) != nil }
    }

    /// Ends the run: every request still in progress is recorded as unfinished and aborted, as iOS kills the
    /// extension's process with its transfers.
    package func endRun() {
        let now = ContinuousClock.now
        let running = lock.withLock { _ in
            ended = true
            // The shared session holds this environment: dropping it here ends the cycle, which leaked every run's
            // environment and session (LeakSanitizer, `make test-asan`). So do the crash watchers: the harness's
            // holds the content handed over, which holds this environment (a batch kept every push's run).
            sharedSession = nil
            crashWatchers = []
            // An SDK stand-in's values (Customer.io's push in progress) hold this environment too.
            standInValues = [:]
            defer { inFlight = [:] }
            for (_, request, started) in inFlight.values {
                var unfinished = request
                unfinished.outcome = .unfinished
                unfinished.milliseconds = started.duration(to: now).milliseconds
                if observed.requests.count < Self.activityLimit { observed.requests.append(unfinished) }
            }
            return inFlight.values.map(\.transfer)
        }
        running.forEach { $0.cancel() }
    }

    /// `URLSession.shared` of this run: made by `make` on first use, the same object afterwards.
    package func sharedSession(orMake make: () -> AnyObject) -> AnyObject {
        lock.withLock { _ in
            if let sharedSession { return sharedSession }
            let made = make()
            // After the run, a session is not kept: nothing would drop it again (see endRun).
            if !ended { sharedSession = made }
            return made
        }
    }

    private var sharedSession: AnyObject?

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

    private var observed = ExtensionActivity()
    /// Entries kept per list: an extension logging in a loop must not exhaust the test's memory.
    package static let activityLimit = 10_000

    /// Milliseconds from the start of the run to `instant`.
    package func milliseconds(at instant: ContinuousClock.Instant = .now) -> Double {
        started.duration(to: instant).milliseconds
    }

    /// A line the extension logged. The `os`/`OSLog` stand-ins, `NSLog` and `print` replacements call this.
    package func log(_ line: ExtensionLogLine) {
        lock.withLock { _ in
            guard observed.log.count < Self.activityLimit else { return }
            observed.log.append(line)
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
        lock.withLock { _ in
            guard observed.files.count < Self.activityLimit else { return }
            observed.files.append(entry)
        }
    }

    /// A request the extension made, once it has ended (or when the run ends with it unfinished).
    package func record(_ request: ExtensionRequest) {
        lock.withLock { _ in
            guard observed.requests.count < Self.activityLimit else { return }
            observed.requests.append(request)
        }
    }

    /// Everything recorded so far, requests in the order they started.
    package var activity: ExtensionActivity {
        var activity = lock.withLock { _ in observed }
        activity.requests.sort { $0.startMilliseconds < $1.startMilliseconds }
        return activity
    }

    // MARK: Memory the stand-ins hold for the run

    private var chargedBytes = 0
    private var chargedPeak = 0

    /// Counts `bytes` the stand-ins hold on the extension's behalf (a decoded bitmap, a response body kept in
    /// memory) against this run, until `releaseMemory(bytes:)`. Exact per run, even when runs overlap.
    package func chargeMemory(bytes: Int) {
        lock.withLock { _ in
            chargedBytes += max(0, bytes)
            chargedPeak = max(chargedPeak, chargedBytes)
        }
    }

    package func releaseMemory(bytes: Int) {
        lock.withLock { _ in chargedBytes = max(0, chargedBytes - max(0, bytes)) }
    }

    /// The most the stand-ins held for this run at once.
    package var accountedMemoryPeak: Int { lock.withLock { _ in chargedPeak } }

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

    private var categories: Set<UNNotificationCategory> = []

    /// What `UNUserNotificationCenter.setNotificationCategories(_:)` last registered in this run (empty at first:
    /// the emulated app has registered none).
    package var notificationCategories: Set<UNNotificationCategory> {
        get { lock.withLock { _ in categories } }
        set { lock.withLock { _ in categories = newValue } }
    }

    private var crashFinding: Diagnostic?
    private var crashWatchers: [@Sendable () -> Void] = []

    /// An SDK stand-in reached code that crashes the extension's process on a device (an Objective-C exception,
    /// a force unwrap of nil): the finding is recorded and the harness ends the run, iOS showing the original
    /// content. The caller returns without calling the content handler, as the dead process would.
    package func crash(_ finding: Diagnostic) {
        let watchers: [@Sendable () -> Void] = lock.withLock { _ in
            guard crashFinding == nil else { return [] }
            crashFinding = finding
            findings.append(finding)
            return crashWatchers
        }
        watchers.forEach { $0() }
    }

    /// True once `crash(_:)` was called.
    package var crashed: Bool { lock.withLock { _ in crashFinding != nil } }

    /// Calls `watcher` when the extension crashes (at once if it already has).
    package func onCrash(_ watcher: @escaping @Sendable () -> Void) {
        let already = lock.withLock { _ in
            if crashFinding == nil { crashWatchers.append(watcher) }
            return crashFinding != nil
        }
        if already { watcher() }
    }

    private var workFoldersHandedOut = 0

    /// A folder of its own for one helper call's files: the run's working folder for the first call (the usual
    /// case, and one folder fewer to create per push), a fresh folder inside it for any later call.
    package func makeWorkFolder() -> URL {
        let first = lock.withLock { _ in
            defer { workFoldersHandedOut += 1 }
            return workFoldersHandedOut == 0
        }
        if first { return context.workDirectory }
        let folder = context.workDirectory.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    // MARK: What an SDK stand-in keeps for one run

    private var standInValues: [String: any Sendable] = [:]

    /// A value an SDK stand-in keeps for this run only (Customer.io's configuration and pushes in progress): one run's
    /// state must not reach the runs of tests going on in parallel, as a process-wide singleton would.
    package func standInValue<Value: Sendable>(_ key: String, as type: Value.Type = Value.self) -> Value? {
        lock.withLock { _ in standInValues[key] as? Value }
    }

    /// Changes the value under `key` atomically; `change` runs with the lock held, so it must not call back.
    package func updateStandInValue<Value: Sendable, Result>(_ key: String, default value: Value, _ change: (inout Value) -> Result) -> Result {
        lock.withLock { _ in
            var current = standInValues[key] as? Value ?? value
            defer { standInValues[key] = current }
            return change(&current)
        }
    }
}
