import Synchronization

/// Computes each key's value once, however many tasks ask for it at the same time: the first asker computes,
/// the others wait for it (asynchronously, holding no thread), and later askers get the stored value.
///
/// A value that `keep` refuses (a cancelled download) is handed to the asker that computed it but not stored:
/// the tasks waiting for it then compute it themselves.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private enum Slot {
        case running(waiters: [UInt64: CheckedContinuation<Void, Never>])
        case done(Value)
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var nextWaiter: UInt64 = 0
        /// Waiters whose task was cancelled before they got to register: they must not wait at all.
        var cancelledWaiters: Set<UInt64> = []
    }

    private enum Claim {
        case stored(Value)
        case compute
        case wait(UInt64)
    }

    private let state = Mutex(State())

    /// The value for `key` and whether it came from another asker; nil when this task was cancelled while
    /// waiting for another task's computation.
    func value(
        for key: Key, keep: (Value) -> Bool, compute: () async -> Value
    ) async -> (value: Value, shared: Bool)? {
        while true {
            let claim: Claim = state.withLock { state in
                switch state.slots[key] {
                case .done(let value)?:
                    return .stored(value)
                case .running?:
                    state.nextWaiter += 1
                    return .wait(state.nextWaiter)
                case nil:
                    state.slots[key] = .running(waiters: [:])
                    return .compute
                }
            }
            switch claim {
            case .stored(let value):
                return (value, true)
            case .compute:
                let value = await compute()
                let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
                    guard case .running(let waiters)? = state.slots[key] else { return [] }
                    state.slots[key] = keep(value) ? .done(value) : nil
                    return Array(waiters.values)
                }
                for waiter in waiters { waiter.resume() }
                return (value, false)
            case .wait(let id):
                await wait(for: key, id: id)
                if Task.isCancelled { return nil }
            }
        }
    }

    /// Returns when the computation running for `key` ends, or at once if this task is cancelled.
    private func wait(for key: Key, id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.cancelledWaiters.remove(id) != nil { return true }
                    guard case .running(var waiters)? = state.slots[key] else { return true }
                    waiters[id] = continuation
                    state.slots[key] = .running(waiters: waiters)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
                if case .running(var waiters)? = state.slots[key], let waiter = waiters.removeValue(forKey: id) {
                    state.slots[key] = .running(waiters: waiters)
                    return waiter
                }
                state.cancelledWaiters.insert(id)
                return nil
            }
            continuation?.resume()
        }
    }
}
