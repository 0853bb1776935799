import Foundation
import NSEConcurrency
import Synchronization

/// `GET /emulator/v1/events`: server-sent events (text/event-stream, as the HTML standard defines them) for
/// every push accepted (`event: accepted`, the notification pending) and every delivery (`event:
/// notification`), `data:` the notification as the device's notifications list shows it, `id:` its line's
/// journal position plus one (grows across clears and restarts; no event has id 0). A client that reconnects with
/// `Last-Event-ID` gets what it missed from the journal first, then the live events; `Last-Event-ID: 0` is before
/// every event, so it gets the whole history. A comment every 15 seconds keeps the connection open through proxies
/// that close idle ones. So a test waits for a delivery instead of sleeping.
///
/// The HTML standard's EventSource sends back the last `id:` it received as `Last-Event-ID` and the server resumes
/// after that event; an EventSource never sends an empty or made-up one, so "from the beginning" needs an id below
/// every event's: hence the plus one.
struct EventsStream: ResponseStream {
    let state: ServeState
    /// Only this device's events (its key); nil: every device's.
    let device: String?
    /// The client's `Last-Event-ID`: the journal's events after it (at positions from it on) come first.
    let lastEventID: Int64?

    var journal: Journal { state.journal }
    var hub: EventHub { state.events }

    static let keepAliveInterval: Duration = .seconds(15)
    /// Live events held while the journal's are sent (a resume): past this many bytes the client is dropped.
    static let maxHeldBytes = StreamWriter.maxBuffered

    func start(_ writer: StreamWriter) {
        let subscription = Subscription(writer: writer)
        let id = hub.subscribe(device: device) { subscription.receive($0) }
        writer.onClose { [hub] in
            hub.unsubscribe(id)
            subscription.end()
        }
        // The first bytes say the subscription is in place: a client that waits for them misses nothing after.
        writer.write(Array(": events of nse serve\n\n".utf8))
        let (state, device, lastEventID) = (state, device, lastEventID)
        Task {
            if let lastEventID {
                // The event with id N is at position N - 1: those after it start at position N.
                await Self.catchUp(from: lastEventID, state: state, device: device, subscription: subscription, writer: writer)
            }
            subscription.goLive()
            while !subscription.isEnded {
                try? await Task.sleep(for: Self.keepAliveInterval)
                if !subscription.isEnded { writer.write(Array(": keep-alive\n\n".utf8)) }
            }
        }
    }

    /// The most event data read before it is written: a page.
    static let pageBytes = 256 << 10

    /// Sends the journal's events at positions from `position` on, a page at a time, each page written before the next
    /// is read, so a long history costs bounded memory. One device's are found along its chain in the index
    /// (`deviceCatchUp`), so its replay reads its own lines, not the whole journal; every device's are the journal's
    /// lines in turn.
    private static func catchUp(from position: Int64, state: ServeState, device: String?, subscription: Subscription, writer: StreamWriter) async {
        let journal = state.journal
        var from = position
        if let device {
            guard let rest = await deviceCatchUp(from: from, state: state, device: device, subscription: subscription, writer: writer) else { return }
            from = rest
        }
        while !subscription.isEnded {
            let start = from
            let page: (events: [EventHub.Event], next: Int64?) = await BlockingExecutor.shared.run("nse.serve.events") {
                var events: [EventHub.Event] = []
                var bytes = 0
                var next: Int64?
                journal.scan(from: start) { position, line in
                    guard position >= start else { return true }
                    if let event = Self.event(line, at: position, journal: journal), device == nil || event.device == device {
                        events.append(event)
                        bytes += event.data.count
                    }
                    if bytes >= Self.pageBytes {
                        next = position + 1
                        return false
                    }
                    return true
                }
                return (events, next)
            }
            for event in page.events {
                guard await writer.writeAndWait(Self.encode(event)) else { return }
                subscription.sent(event.id)
            }
            guard let next = page.next else { return }
            from = next
        }
    }

    /// Sends the device's events from its chain in the index (every push and delivery line before the position the
    /// state gives, `ServeState.eventLines(deviceKey:...)`), oldest first, then returns that position, from which the
    /// journal is read for the rest (lines whose change the state had not applied yet). nil: the client is gone.
    private static func deviceCatchUp(from: Int64, state: ServeState, device: String, subscription: Subscription, writer: StreamWriter) async -> Int64? {
        var lines: [EventLine] = []
        var start: Int?
        var before: Int64?
        repeat {
            let page = await state.eventLines(deviceKey: device, from: from, start: start, before: before, maxPushes: 4096)
            lines += page.lines
            (start, before) = (page.next, page.before)
        } while start != nil && !subscription.isEnded
        let sorted = lines.sorted { $0.position < $1.position }
        let journal = state.journal
        var next = 0
        while next < sorted.count {
            guard !subscription.isEnded else { return nil }
            let first = next
            let page: (events: [EventHub.Event], next: Int) = await BlockingExecutor.shared.run("nse.serve.events") {
                var events: [EventHub.Event] = []
                var bytes = 0
                var index = first
                while index < sorted.count, bytes < Self.pageBytes {
                    if let event = Self.event(sorted[index], journal: journal) {
                        events.append(event)
                        bytes += event.data.count
                    }
                    index += 1
                }
                return (events, index)
            }
            for event in page.events {
                guard await writer.writeAndWait(Self.encode(event)) else { return nil }
                subscription.sent(event.id)
            }
            next = page.next
        }
        return max(from, before ?? from)
    }

    /// The event of a push or delivery line the index gave.
    static func event(_ line: EventLine, journal: Journal) -> EventHub.Event? {
        guard let pushLine = journal.read(at: line.push, length: line.pushLength) else { return nil }
        var delivery: Data?
        if line.isDelivery {
            guard let deliveryLine = journal.read(at: line.position, length: line.length),
                  let parsed = NotificationRecord.deliveryLine(deliveryLine) else { return nil }
            delivery = parsed.delivery
        }
        guard let record = NotificationRecord(pushLine: pushLine, delivery: delivery) else { return nil }
        return EventHub.Event(id: line.position, name: line.isDelivery ? "notification" : "accepted", device: record.device, data: record.json())
    }

    /// The event a journal line records, if it records one.
    static func event(_ line: Data, at position: Int64, journal: Journal) -> EventHub.Event? {
        if line.starts(with: Data(#"{"type":"push","#.utf8)) {
            guard let record = NotificationRecord(pushLine: line, delivery: nil) else { return nil }
            return EventHub.Event(id: position, name: "accepted", device: record.device, data: record.json())
        }
        if line.starts(with: Data(#"{"type":"delivery","#.utf8)) {
            guard let delivery = NotificationRecord.deliveryLine(line), let push = delivery.push,
                  let pushLine = journal.readLine(at: push),
                  let record = NotificationRecord(pushLine: pushLine, delivery: delivery.delivery) else { return nil }
            return EventHub.Event(id: position, name: "notification", device: record.device, data: record.json())
        }
        return nil
    }

    /// One event as text/event-stream frames it (the data is one line of JSON); its id is its position plus one.
    static func encode(_ event: EventHub.Event) -> [UInt8] {
        var bytes = Array("id: \(event.id + 1)\nevent: \(event.name)\ndata: ".utf8)
        bytes.append(contentsOf: event.data)
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }

    /// One client's live events: held while the journal's are sent, then written as they come, in order, none
    /// twice (an event both read from the journal and published live is sent once, by its id).
    final class Subscription: Sendable {
        private struct State {
            var live = false
            var ended = false
            var held: [EventHub.Event] = []
            var heldBytes = 0
            var lastSent: Int64 = -1
        }

        private let writer: StreamWriter
        private let state = Mutex(State())

        init(writer: StreamWriter) {
            self.writer = writer
        }

        var isEnded: Bool { state.withLock { $0.ended } }

        func end() {
            state.withLock { state in
                state.ended = true
                state.held = []
            }
        }

        func sent(_ id: Int64) {
            state.withLock { $0.lastSent = max($0.lastSent, id) }
        }

        /// A live event, from the journal's writer (in order): written now, or held during a catch-up.
        func receive(_ event: EventHub.Event) {
            let tooMany = state.withLock { state -> Bool in
                guard !state.ended else { return false }
                guard state.live else {
                    state.held.append(event)
                    state.heldBytes += event.data.count
                    return state.heldBytes > EventsStream.maxHeldBytes
                }
                guard event.id > state.lastSent else { return false }
                state.lastSent = event.id
                // Under the lock: writes reach the event loop in the order of their ids.
                writer.write(EventsStream.encode(event))
                return false
            }
            if tooMany { writer.close() }
        }

        /// The catch-up is done: the held events not already sent go out, and from now on each as it comes.
        func goLive() {
            state.withLock { state in
                for event in state.held where event.id > state.lastSent {
                    state.lastSent = event.id
                    writer.write(EventsStream.encode(event))
                }
                state.held = []
                state.heldBytes = 0
                state.live = true
            }
        }
    }
}


/// A push or delivery line of one device's, as its index entry gives it: where it is, and where its push's line is.
struct EventLine: Sendable {
    var position: Int64
    var length: Int
    var push: Int64
    var pushLength: Int
    var isDelivery: Bool
}
