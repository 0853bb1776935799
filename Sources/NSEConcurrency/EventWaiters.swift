import Synchronization

/// Tasks waiting for a condition that other threads make true, each until a deadline of its own: the owner
/// calls `notify()` after every change that may satisfy a waiter.
///
/// Why not a task group racing the condition against `Task.sleep(until:)`: a cancelled sleep stays scheduled
/// until its deadline and keeps the waiting task, and everything its frame holds, alive until then, so a batch
/// would keep every push of the last 30 s. Here the deadline is a job on the executor's timer, cancelled as soon
/// as the wait ends.
public final class EventWaiters: Sendable {
    // Guarded by itself: continuations to resume with false ("look again").
    private let waiting = Mutex<[CheckedContinuation<Bool, Never>]>([])

    public init() {}

    /// Returns once `isSatisfied()` holds, `deadline` has come or the task is cancelled. `isSatisfied` runs with
    /// this object's lock held, so it must not call `notify()`; it may take the owner's own lock.
    public func wait(until deadline: ContinuousClock.Instant, _ isSatisfied: @escaping @Sendable () -> Bool) async {
        let timer = BlockingExecutor.shared.schedule(at: deadline, "nse.wait-deadline") { [self] in notify() }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            // Each wake-up is a "look again": the condition, the clock and cancellation are checked under the lock
            // that `notify()` takes, so no wake-up between the check and the wait is missed.
            while await !withCheckedContinuation({ (continuation: CheckedContinuation<Bool, Never>) in
                let ready: Bool = waiting.withLock { waiting in
                    if isSatisfied() || ContinuousClock.now >= deadline || Task.isCancelled { return true }
                    waiting.append(continuation)
                    return false
                }
                if ready { continuation.resume(returning: true) }
            }) {}
        } onCancel: {
            notify()
        }
    }

    /// Wakes every waiter to check its condition again; call it after each change, outside any lock a waiter's
    /// condition takes.
    public func notify() {
        let woken = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        woken.forEach { $0.resume(returning: false) }
    }
}
