import Foundation

/// State shared between the server's threads, touched only with a lock held, and a way to wait for it to change.
///
/// Not `Synchronization.Mutex`: on Linux it locks with a bare futex that ThreadSanitizer cannot see, so every
/// access under it is reported as a race. NSCondition is a pthread mutex and condition variable, which TSan
/// understands, and the condition is what stop() needs to wait for the last thread to end.
final class GuardedState<State>: @unchecked Sendable {
    // `state` is read and written only while `condition` is locked.
    private var state: State
    private let condition = NSCondition()

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the lock held; with `notify`, wakes every `wait` afterwards to look again.
    func withLock<Result>(notify: Bool = false, _ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            if notify { condition.broadcast() }
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `isDone` holds (checked whenever a `withLock(notify: true)` ran) or `deadline` passes.
    func wait(until deadline: Date, for isDone: (State) -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        while !isDone(state) {
            if !condition.wait(until: deadline) { return }
        }
    }
}
