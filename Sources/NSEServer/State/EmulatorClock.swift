import Foundation
import Synchronization

/// The emulator's clock: the configured clock (the wall clock unless a test gives its own) moved by the control
/// API (`POST /emulator/v1/clock`), so a test checks what happens after an hour or 270 days without waiting.
/// Provider tokens' age, uninstall times, FCM token inactivity and provider token updates all read it. Its
/// offset is journaled (`ServeState.changeClock`), so a restarted server's clock reads as if it had run on.
final class EmulatorClock: Sendable {
    private let base: @Sendable () -> Date
    /// Seconds added to the base clock; only the control API changes it, and a clear of the state resets it.
    private let offset = Mutex<TimeInterval>(0)

    init(base: @escaping @Sendable () -> Date) {
        self.base = base
    }

    func now() -> Date {
        base() + offset.withLock { $0 }
    }

    /// From now on the clock reads `date` and runs on from it.
    func set(_ date: Date) {
        let target = date.timeIntervalSince(base())
        offset.withLock { $0 = target }
    }

    /// Moves the clock forward (or back, for a negative `seconds`).
    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }

    func reset() {
        offset.withLock { $0 = 0 }
    }

    /// How far the control API moved the clock from the base clock, in seconds: what the journal keeps, so a
    /// restart reads the same time (`restore(offset:)`).
    var offsetSeconds: TimeInterval {
        offset.withLock { $0 }
    }

    func restore(offset seconds: TimeInterval) {
        offset.withLock { $0 = seconds }
    }
}
