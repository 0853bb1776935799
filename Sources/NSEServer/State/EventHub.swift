import Foundation
import Synchronization

/// The events stream's subscribers (`GET /emulator/v1/events`), and the journal's events handed to them as
/// they reach the disk. `publish` is called by the journal's writer in file order, so each subscriber sees the
/// events in the order of their `id` (the line's journal position). An event's data is made only when some
/// subscriber wants it: without subscribers a push costs a lock and a look.
final class EventHub: Sendable {
    struct Event: Sendable {
        /// The journal position of the line that recorded it: grows with every event, across clears and restarts.
        var id: Int64
        /// `accepted` (a push journaled, pending) or `notification` (its delivery).
        var name: String
        var device: String
        /// The notification, as `GET /emulator/v1/devices/{token}/notifications` lists it.
        var data: Data
    }

    private struct Subscriber {
        /// Only this device's events; nil: every device's.
        var device: String?
        var send: @Sendable (Event) -> Void
    }

    private let subscribers = Mutex<(next: Int, all: [Int: Subscriber])>((0, [:]))

    /// Registers `send` for the events from now on; returns the number `unsubscribe` takes.
    func subscribe(device: String?, send: @escaping @Sendable (Event) -> Void) -> Int {
        subscribers.withLock { state in
            let id = state.next
            state.next += 1
            state.all[id] = Subscriber(device: device, send: send)
            return id
        }
    }

    func unsubscribe(_ id: Int) {
        _ = subscribers.withLock { $0.all.removeValue(forKey: id) }
    }

    /// Hands the event to each subscriber that wants it; `data` is made once, and only then.
    func publish(id: Int64, name: String, device: String, data: () -> Data?) {
        let wanting = subscribers.withLock { state in
            state.all.values.filter { $0.device == nil || $0.device == device }.map(\.send)
        }
        guard !wanting.isEmpty, let data = data() else { return }
        let event = Event(id: id, name: name, device: device, data: data)
        for send in wanting { send(event) }
    }
}
