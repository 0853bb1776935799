import Foundation
import NSEKit
import UserNotifications

/// Runs a `UNNotificationServiceExtension` subclass the way iOS does: `didReceive` on a thread of its own,
/// `serviceExtensionTimeWillExpire()` when the budget runs out, a short grace for the handler after that,
/// and the original content if the handler is never called.
public struct HarnessRunner: ExtensionRunner {
    private let makeExtension: @Sendable () -> UNNotificationServiceExtension
    /// How long iOS waits for the handler after `serviceExtensionTimeWillExpire()`: undocumented, "briefly".
    public var expiryGrace: Duration
    /// Measure the process's memory growth during the run against `DeviceProfile.memoryLimit`. The figure is
    /// process-wide, so only meaningful when one extension runs at a time.
    public var measuresMemory: Bool
    public let changesContent: Bool

    public init(
        expiryGrace: Duration = .seconds(1), measuresMemory: Bool = true, changesContent: Bool = false,
        makeExtension: @escaping @Sendable () -> UNNotificationServiceExtension
    ) {
        self.makeExtension = makeExtension
        self.expiryGrace = expiryGrace
        self.measuresMemory = measuresMemory
        self.changesContent = changesContent
    }

    public func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
        let environment = ExtensionEnvironment(context: context)
        let request = UNNotificationRequest(
            identifier: UUID().uuidString, content: UNNotificationContent(state.original, environment: environment),
            trigger: UNPushNotificationTrigger())
        let handler = ContentHandlerRecorder()
        let instance = Unshared(makeExtension())
        let baseline = measuresMemory ? MemoryGauge.resetPeak() : nil

        let deadline = context.deadline
        startThread("nse.didReceive") {
            environment.withCurrent {
                instance.value.didReceive(request) { handler.record($0) }
            }
        }
        // The budget is kept by a thread of its own, so a busy cooperative pool cannot delay the expiry call.
        startThread("nse.budget") {
            guard !handler.waitBlocking(until: deadline) else { return }
            environment.withCurrent { instance.value.serviceExtensionTimeWillExpire() }
        }
        // Calls are judged by when they happened, not by when this task gets to look.
        let delivered = await handler.waitForFirst(until: deadline + expiryGrace)
        let expired = handler.firstCall.map { $0 > deadline } ?? true
        if expired {
            // Let helpers that gave up at the same deadline record why, before their findings are read.
            await environment.waitForHelpers(until: deadline + expiryGrace)
        }
        state.memoryPeakBytes = baseline.flatMap(MemoryGauge.growth(since:))
        state.diagnostics += environment.diagnostics
        state.timings.merge(environment.timings) { _, new in new }
        state.mediaRequested = environment.mediaRequested
        if expired {
            state.diagnostics.append(.error(.extensionTimeExpired, "The extension did not call its content handler within the \(context.profile.timeBudget.secondsText) budget, so iOS called serviceExtensionTimeWillExpire(): the phone shows what that delivers (Apple's template: the best attempt, without the image)."))
        }

        let calls = handler.calls
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
        return expired ? .expired : .delivered
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

/// Records content handler calls, from any thread, and lets the harness wait for the first.
final class ContentHandlerRecorder: @unchecked Sendable {
    // `lock` guards every field below; waiting threads sleep on it until the first call.
    private let lock = NSCondition()
    private var first: UNNotificationContent?
    /// When the first call happened: judged against deadlines by the clock, not by when the waiting task runs.
    private var firstAt: ContinuousClock.Instant?
    private var count = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var calls: Int { lock.withLock { count } }

    func record(_ content: UNNotificationContent) {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            count += 1
            guard first == nil else { return [] }
            // The phone shows the content as it was when handed over.
            first = content.copy() as? UNNotificationContent ?? content
            firstAt = .now
            lock.broadcast()
            defer { waiters.removeAll() }
            return waiters
        }
        resumed.forEach { $0.resume() }
    }

    /// When the first call happened, if it did.
    var firstCall: ContinuousClock.Instant? { lock.withLock { firstAt } }

    /// Blocks the calling thread until the first call or `deadline`; true when the call came in time.
    func waitBlocking(until deadline: ContinuousClock.Instant) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while firstAt == nil {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            _ = lock.wait(until: Date(timeIntervalSinceNow: remaining.milliseconds / 1000))
        }
        return firstAt.map { $0 <= deadline } ?? false
    }

    /// The first content handed over by `deadline`, waiting until then at most.
    func waitForFirst(until deadline: ContinuousClock.Instant) async -> UNNotificationContent? {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.arrival() }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
            // Wake an arrival waiter the timer beat, so the group can finish.
            self.releaseWaiters()
        }
        return lock.withLock {
            guard let firstAt, firstAt <= deadline else { return nil }
            return first
        }
    }

    private func arrival() async {
        await withCheckedContinuation { continuation in
            let ready: Bool = lock.withLock {
                if first != nil { return true }
                waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func releaseWaiters() {
        let pending = lock.withLock {
            defer { waiters.removeAll() }
            return waiters
        }
        pending.forEach { $0.resume() }
    }
}
