import Foundation

/// Computes each key's value once, for callers on threads of their own (download threads, which block anyway):
/// the first caller computes, the others block until it is done, later callers get the stored value.
///
/// A value that `keep` refuses (a cancelled download) is handed to its computer but not stored: the callers
/// waiting for it then compute it themselves.
final class BlockingSingleFlight<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private enum Slot {
        case running
        case done(Value)
    }

    // `condition` guards `slots`.
    private let condition = NSCondition()
    private var slots: [Key: Slot] = [:]

    /// The value for `key`, and whether another caller computed it.
    func value(for key: Key, keep: (Value) -> Bool, compute: () -> Value) -> (value: Value, shared: Bool) {
        condition.lock()
        while true {
            switch slots[key] {
            case .done(let value)?:
                condition.unlock()
                return (value, true)
            case .running?:
                condition.wait()
            case nil:
                slots[key] = .running
                condition.unlock()
                let value = compute()
                condition.lock()
                slots[key] = keep(value) ? .done(value) : nil
                condition.broadcast()
                condition.unlock()
                return (value, false)
            }
        }
    }
}
