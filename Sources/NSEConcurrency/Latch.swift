import Foundation

/// A value set once, for a thread that must block until it is there: a blocking call made on top of work that
/// completes through a callback (a download on the network thread, a value another caller computes).
///
/// Blocking is for code that is itself on a thread of its own (an extension's callback); async code awaits the
/// callback through a continuation instead. Like the executor's workers, it is the one place outside them where a
/// thread sleeps on a condition variable.
public final class Latch<Value: Sendable>: @unchecked Sendable {
    // `condition` guards `value`.
    private let condition = NSCondition()
    private var value: Value?

    public init() {}

    /// Sets the value and wakes the waiters; later calls are ignored.
    public func open(_ value: Value) {
        condition.lock()
        if self.value == nil {
            self.value = value
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Blocks until the value is set.
    public func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value { return value }
            condition.wait()
        }
    }

    /// Blocks until the value is set or `deadline` passes (nil then).
    public func wait(until deadline: ContinuousClock.Instant) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.secondsValue))
        }
        return value
    }

    /// The value, if set.
    public var current: Value? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }
}
