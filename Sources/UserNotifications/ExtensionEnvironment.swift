import Foundation
import NSEKit

/// One harness run as the UserNotifications and Firebase stand-ins see it: the time budget, the network
/// settings, and where findings go. Shared by the extension's threads; `lock` guards the mutable state.
package final class ExtensionEnvironment: @unchecked Sendable {
    package let context: ExtensionContext
    private let lock = NSLock()
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
        get { Thread.current.threadDictionary[key] as? ExtensionEnvironment ?? taskRun }
        set { Thread.current.threadDictionary[key] = newValue }
    }

    /// The run of a `Task { }` the extension starts from `didReceive` (Swift copies task-locals bound on the
    /// starting thread into it), so `Logger`, `UIImage` and async downloads inside it find their run.
    /// Detached tasks and dispatch queues still have none.
    @TaskLocal private static var taskRun: ExtensionEnvironment?

    private static let key = "nse.extension-environment"

    /// Runs `body` with `self` as the current thread's environment.
    package func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        let previous = Self.current
        Self.current = self
        defer { Self.current = previous }
        return try Self.$taskRun.withValue(self) { try body() }
    }

    package func record(_ diagnostic: Diagnostic) {
        lock.withLock { findings.append(diagnostic) }
    }

    package func record(_ diagnostics: [Diagnostic]) {
        lock.withLock { findings += diagnostics }
    }

    package var diagnostics: [Diagnostic] { lock.withLock { findings } }

    private var partTimings: [String: Double] = [:]

    /// Milliseconds spent in named parts of helpers' work ("download").
    package var timings: [String: Double] { lock.withLock { partTimings } }

    package func record(timings: [String: Double]) {
        lock.withLock { partTimings.merge(timings) { _, new in new } }
    }

    package func noteAttachmentAttempt() {
        lock.withLock { attachmentAttempted = true }
    }

    package func noteImageRequested() {
        lock.withLock { imageRequested = true }
    }

    /// The extension asked for media (an image key, or an attachment it tried to create).
    package var mediaRequested: Bool { lock.withLock { attachmentAttempted || imageRequested } }

    /// Runs a helper's background work (a download, then the handler call) on a thread of its own, as iOS
    /// runs URLSession callbacks, and counts it so the harness can wait for its findings.
    package func helper(_ name: String, _ work: @escaping @Sendable () -> Void) {
        lock.withLock { helpersRunning += 1 }
        startThread(name) {
            work()
            self.lock.withLock { self.helpersRunning -= 1 }
        }
    }

    /// Waits until every helper has finished, or `deadline`.
    package func waitForHelpers(until deadline: ContinuousClock.Instant) async {
        while lock.withLock({ helpersRunning > 0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
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
        lock.withLock {
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
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        let entry = ExtensionFile(milliseconds: milliseconds(), path: url.path, action: action, bytes: action == .removed ? nil : size, by: api)
        lock.withLock {
            guard observed.files.count < Self.activityLimit else { return }
            observed.files.append(entry)
        }
    }

    /// A request the extension made, once it has ended (or when the run ends with it unfinished).
    package func record(_ request: ExtensionRequest) {
        lock.withLock {
            guard observed.requests.count < Self.activityLimit else { return }
            observed.requests.append(request)
        }
    }

    /// Everything recorded so far, requests in the order they started.
    package var activity: ExtensionActivity {
        var activity = lock.withLock { observed }
        activity.requests.sort { $0.startMilliseconds < $1.startMilliseconds }
        return activity
    }

    // MARK: Memory the stand-ins hold for the run

    private var chargedBytes = 0
    private var chargedPeak = 0

    /// Counts `bytes` the stand-ins hold on the extension's behalf (a decoded bitmap, a response body kept in
    /// memory) against this run, until `releaseMemory(bytes:)`. Exact per run, even when runs overlap.
    package func chargeMemory(bytes: Int) {
        lock.withLock {
            chargedBytes += max(0, bytes)
            chargedPeak = max(chargedPeak, chargedBytes)
        }
    }

    package func releaseMemory(bytes: Int) {
        lock.withLock { chargedBytes = max(0, chargedBytes - max(0, bytes)) }
    }

    /// The most the stand-ins held for this run at once.
    package var accountedMemoryPeak: Int { lock.withLock { chargedPeak } }

    // MARK: The app's container

    /// The run's own sandbox folder for the app-group container (`FileManager.containerURL(...)`,
    /// `UserDefaults(suiteName:)`): inside the run's working folder, so it goes with it; the harness copies the
    /// test's seed folder into it before the extension starts.
    package var containerDirectory: URL {
        let folder = context.workDirectory.appendingPathComponent("Container", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private var workFoldersHandedOut = 0

    /// A folder of its own for one helper call's files: the run's working folder for the first call (the usual
    /// case, and one folder fewer to create per push), a fresh folder inside it for any later call.
    package func makeWorkFolder() -> URL {
        let first = lock.withLock {
            defer { workFoldersHandedOut += 1 }
            return workFoldersHandedOut == 0
        }
        if first { return context.workDirectory }
        let folder = context.workDirectory.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
