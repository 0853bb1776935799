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

    package init(context: ExtensionContext) {
        self.context = context
    }

    /// The environment of a harness run, for a run's code that gets no content to find it from
    /// (`UNNotificationAttachment(identifier:url:options:)`): set per thread by the harness and helpers.
    package static var current: ExtensionEnvironment? {
        get { Thread.current.threadDictionary[key] as? ExtensionEnvironment }
        set { Thread.current.threadDictionary[key] = newValue }
    }

    private static let key = "nse.extension-environment"

    /// Runs `body` with `self` as the current thread's environment.
    package func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        let previous = Self.current
        Self.current = self
        defer { Self.current = previous }
        return try body()
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
