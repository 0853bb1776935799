import Synchronization

/// Computes each key's value once, however many callers ask for it at the same time: the first caller computes,
/// the others wait for it (holding no thread: they are called back), and later callers get the stored value.
///
/// A value that `keep` refuses (a cancelled download) is handed to the caller that computed it but not stored:
/// the callers waiting for it then compute it themselves. The callback form is the core; `value(...) async`
/// and `valueBlocking(...)` wait for it, the one from a task, the other on a thread of its own.
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public typealias Compute = @Sendable (_ finish: @escaping @Sendable (Value) -> Void) -> Void
    public typealias Deliver = @Sendable (_ value: Value, _ shared: Bool) -> Void

    private enum Slot {
        /// Each waiter gets the value, or nil when it was not kept (the waiter then asks again).
        case running(waiters: [@Sendable (Value?) -> Void])
        case done(Value)
    }

    private enum Claim {
        case stored(Value)
        case compute
        case wait
    }

    private let slots = Mutex<[Key: Slot]>([:])

    public init() {}

    /// Calls `deliver` with the value for `key` and whether another caller computed it. `compute` starts the
    /// computation and calls its `finish` once, from any thread; `deliver` runs on the thread that finished.
    public func value(for key: Key, keep: @escaping @Sendable (Value) -> Bool, compute: @escaping Compute, deliver: @escaping Deliver) {
        let claim: Claim = slots.withLock { slots in
            switch slots[key] {
            case .done(let value)?:
                return .stored(value)
            case .running(var waiters)?:
                waiters.append { [self] value in
                    if let value {
                        deliver(value, true)
                    } else {
                        self.value(for: key, keep: keep, compute: compute, deliver: deliver)
                    }
                }
                slots[key] = .running(waiters: waiters)
                return .wait
            case nil:
                slots[key] = .running(waiters: [])
                return .compute
            }
        }
        switch claim {
        case .stored(let value):
            deliver(value, true)
        case .wait:
            break
        case .compute:
            compute { [self] value in
                let kept = keep(value)
                let waiters: [@Sendable (Value?) -> Void] = slots.withLock { slots in
                    guard case .running(let waiters)? = slots[key] else { return [] }
                    slots[key] = kept ? .done(value) : nil
                    return waiters
                }
                deliver(value, false)
                for waiter in waiters { waiter(kept ? value : nil) }
            }
        }
    }

    /// The value for `key` and whether another caller computed it. A task cancelled while waiting still waits
    /// for the computation, which is bounded (a download by its deadline, a decode by its limits).
    public func value(for key: Key, keep: @escaping @Sendable (Value) -> Bool, compute: @escaping Compute) async -> (value: Value, shared: Bool) {
        await withCheckedContinuation { continuation in
            value(for: key, keep: keep, compute: compute) { continuation.resume(returning: ($0, $1)) }
        }
    }

    /// The same, blocking the calling thread: for callers on a thread of their own (a stand-in's callback).
    public func valueBlocking(for key: Key, keep: @escaping @Sendable (Value) -> Bool, compute: @escaping Compute) -> (value: Value, shared: Bool) {
        let latch = Latch<Answer>()
        value(for: key, keep: keep, compute: compute) { latch.open(Answer(value: $0, shared: $1)) }
        let answer = latch.wait()
        return (answer.value, answer.shared)
    }

    private struct Answer: Sendable {
        var value: Value
        var shared: Bool
    }
}
