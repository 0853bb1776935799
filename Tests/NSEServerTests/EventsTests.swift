import Foundation
import NSEConcurrency
import NSEServer
import Synchronization
import Testing

/// `GET /emulator/v1/events`: server-sent events a test waits on instead of sleeping, read by curl (HTTP/1.1)
/// and by httpx (HTTP/2), resumed with Last-Event-ID, and a reader that stops reading is dropped.
/// The hang guard is generous: the slow reader's thousand pushes took four minutes on a machine loaded 35 deep.
@Suite(.timeLimit(.minutes(10)))
struct EventsTests {
    @Test func curlReadsAnAcceptedAndANotificationEvent() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let stream = try EventStreamReader(["-N", "-s", fixture.base + "/emulator/v1/events?device=\(ServeFixture.token)"])
        defer { stream.stop() }
        // The opening comment: the subscription is in place.
        _ = await stream.read(until: { $0.contains(": events of nse serve") })
        let id = "123E4567-E89B-12D3-A456-426614174101"
        #expect(try await apns(fixture, headers: ["apns-id": id]).status == 200)
        let text = await stream.read(until: { $0.contains("event: notification") && $0.hasSuffix("\n\n") })
        let events = EventStreamReader.events(text)
        #expect(events.map(\.event) == ["accepted", "notification"])
        let ids = events.compactMap { Int64($0.id) }
        #expect(ids.count == 2 && ids[0] < ids[1])
        let delivered = try #require(events.last?.data)
        #expect(delivered["id"] as? String == id)
        #expect(delivered["status"] as? String == "delivered")
        #expect((delivered["phone"] as? [String: Any])?["shown"] as? Bool == true)
        #expect(events.first?.data["status"] as? String == "pending")
        // The event's data is the notification as the device's list gives it.
        let listed = try #require(try await fixture.notifications().first)
        #expect(NSDictionary(dictionary: listed).isEqual(to: delivered))
    }

    @Test func anotherDevicesEventsAreFilteredOut() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let stream = try EventStreamReader(["-N", "-s", fixture.base + "/emulator/v1/events?device=\(ServeFixture.productionToken)"])
        defer { stream.stop() }
        _ = await stream.read(until: { $0.contains(": events of nse serve") })
        #expect(try await apns(fixture).status == 200)
        #expect(try await apns(fixture, token: ServeFixture.productionToken).status == 200)
        let text = await stream.read(until: { $0.contains("event: notification") && $0.hasSuffix("\n\n") })
        let devices = EventStreamReader.events(text).compactMap { $0.data["device"] as? String }
        #expect(devices == [ServeFixture.productionToken, ServeFixture.productionToken])
        #expect(try await curl([fixture.base + "/emulator/v1/events?device=ffff"]).status == 404)
    }

    /// Over HTTP/2 (httpx): every push's notification arrives, ids grow; reconnecting with Last-Event-ID after
    /// the first notification replays the rest from the journal, after a restart too.
    @Test func httpxOverHTTP2FollowsAndResumesFromTheJournal() async throws {
        let first = try await ServeFixture.start()
        let followed = try await python("events_client.py", ["follow", String(first.port), ServeFixture.token, ServeFixture.topic, "5"])
        #expect(followed["http_version"] as? String == "HTTP/2")
        let events = try #require(followed["events"] as? [[String: Any]])
        let notifications = events.filter { $0["event"] as? String == "notification" }
        #expect(notifications.count == 5)
        let ids = events.compactMap { ($0["id"] as? String).flatMap { Int64($0) } }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count && ids.count == events.count)
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let resumeAfter = try #require(notifications.first?["id"] as? String)
        let resumed = try await python("events_client.py", [
            "follow", String(second.port), ServeFixture.token, ServeFixture.topic, "4", "--last-event-id", resumeAfter,
        ])
        let replayed = try #require(resumed["events"] as? [[String: Any]]).filter { $0["event"] as? String == "notification" }
        #expect(replayed.compactMap { $0["id"] as? String } == notifications.dropFirst().compactMap { $0["id"] as? String })
        #expect(replayed.compactMap { ($0["data"] as? [String: Any])?["status"] as? String } == Array(repeating: "delivered", count: 4))
    }

    /// The events of a replay with `Last-Event-ID: lastEventID` (every device's, or one device's). Where it ends is
    /// marked by a push sent once the stream is open (to `device`, or to Ana's iPhone): what came before its
    /// `accepted` event is the replay. Earlier markers are left out.
    static func replay(_ fixture: ServeFixture, device: String? = nil, lastEventID: String) async throws -> [EventStreamReader.Event] {
        let query = device.map { "?device=\($0)" } ?? ""
        let stream = try EventStreamReader(["-N", "-s", "-H", "Last-Event-ID: \(lastEventID)", fixture.base + "/emulator/v1/events" + query])
        defer { stream.stop() }
        _ = await stream.read(until: { $0.contains(": events of nse serve") })
        let marker = "5E471E00-0000-4000-8000-\(String(UUID().uuidString.suffix(12)))"
        #expect(try await apns(fixture, token: device ?? ServeFixture.token, headers: ["apns-id": marker]).status == 200)
        let text = await stream.read(until: { text in EventStreamReader.events(text).contains { $0.data["id"] as? String == marker } })
        let events = EventStreamReader.events(text)
        let end = events.firstIndex { $0.data["id"] as? String == marker } ?? events.endIndex
        return events[..<end].filter { ($0.data["id"] as? String)?.hasPrefix("5E471E00-") != true }
    }

    /// No event has id 0, so `Last-Event-ID: 0` replays the whole history from the journal's very first line: here a
    /// push (a journal from before `active` lines), which an id equal to the position could never ask for. An
    /// EventSource sends back only ids it received; a client that has none asks from before every event.
    @Test func lastEventIDZeroReplaysFromTheFirstEvent() async throws {
        let first = try await ServeFixture.start()
        for title in ["first", "second"] {
            #expect(try await apns(first, payload: #"{"aps":{"alert":{"title":"\#(title)"}}}"#).status == 200)
        }
        _ = try await first.notifications()
        await first.stop(keepingData: true)
        // The journal without its first line (the `active` one), each delivery line's `push` moved to where its push
        // now is: the first push is at position 0.
        let journal = first.data.appendingPathComponent("journal.jsonl")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""type":"active""#) == true)
        var moved: [String: Int] = [:]
        var (old, rewritten) = (lines[0].utf8.count + 1, "")
        for line in lines.dropFirst() {
            var kept = line
            if line.contains(#""type":"push""#) { moved[String(old)] = rewritten.utf8.count }
            if let field = line.range(of: #""push":[0-9]+"#, options: .regularExpression) {
                let position = String(line[field].dropFirst(#""push":"#.count))
                kept.replaceSubrange(field, with: #""push":\#(try #require(moved[position]))"#)
            }
            old += line.utf8.count + 1
            rewritten += kept + "\n"
        }
        try Data(rewritten.utf8).write(to: journal)
        let fixture = try await ServeFixture.start(data: first.data)
        defer { Task { await fixture.stop() } }
        for device in [nil, ServeFixture.token] {
            let events = try await Self.replay(fixture, device: device, lastEventID: "0")
            #expect(events.map(\.event) == ["accepted", "notification", "accepted", "notification"])
            #expect(events.map { $0.data["seq"] as? Int } == [1, 1, 2, 2])
            #expect(events.first?.id == "1")
            let ids = events.compactMap { Int64($0.id) }
            #expect(ids.count == 4 && ids == ids.sorted())
            // Resuming after the first event gives the three after it.
            let resumed = try await Self.replay(fixture, device: device, lastEventID: events[0].id)
            #expect(resumed.map(\.id) == events.dropFirst().map(\.id))
        }
    }

    /// One device's replay (read along its chain in the index) is exactly the journal's events of that device, as
    /// every device's replay (read line by line) gives them: the same ids, names and data, in the same order, from
    /// the beginning and from an event in the middle, across a restart.
    @Test func oneDevicesReplayIsTheJournalsEventsOfThatDevice() async throws {
        let first = try await ServeFixture.start()
        let tokens = [ServeFixture.token, ServeFixture.productionToken, ServeFixture.token]
        for number in 0..<9 {
            #expect(try await apns(first, token: tokens[number % 3], payload: #"{"aps":{"alert":"push \#(number)"}}"#).status == 200)
        }
        _ = try await first.notifications(ServeFixture.token)
        _ = try await first.notifications(ServeFixture.productionToken)
        await first.stop(keepingData: true)
        let fixture = try await ServeFixture.start(data: first.data)
        defer { Task { await fixture.stop() } }
        for number in 9..<12 {
            #expect(try await apns(fixture, token: tokens[number % 3], payload: #"{"aps":{"alert":"push \#(number)"}}"#).status == 200)
        }
        _ = try await fixture.notifications(ServeFixture.token)
        _ = try await fixture.notifications(ServeFixture.productionToken)

        let all = try await Self.replay(fixture, lastEventID: "0")
        #expect(all.count == 24)
        for device in [ServeFixture.token, ServeFixture.productionToken] {
            let expected = all.filter { $0.data["device"] as? String == device }
            let replayed = try await Self.replay(fixture, device: device, lastEventID: "0")
            #expect(replayed.map(\.id) == expected.map(\.id))
            #expect(replayed.map(\.event) == expected.map(\.event))
            #expect(zip(replayed, expected).allSatisfy { NSDictionary(dictionary: $0.data).isEqual(to: $1.data) })
            let middle = expected.count / 2
            let resumed = try await Self.replay(fixture, device: device, lastEventID: expected[middle].id)
            #expect(resumed.map(\.id) == expected[(middle + 1)...].map(\.id))
        }
    }

    /// A client that stops reading is dropped once the server holds more than StreamWriter.maxBuffered bytes for
    /// it, instead of the server holding every event for it.
    @Test func aReaderThatStopsReadingIsDropped() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let result = try await python("events_client.py", ["slow", String(fixture.port), ServeFixture.token, ServeFixture.topic, "1000"])
        #expect(result["ended"] as? Bool == true)
        #expect(result["sawLast"] as? Bool == false)
    }
}

/// A streaming child (`curl -N`) whose standard output is read as it comes, on the blocking executor.
final class EventStreamReader: Sendable {
    private let child: ChildProcess
    private let seen = Mutex("")

    init(_ arguments: [String]) throws {
        child = try ChildProcess("/usr/bin/curl", arguments, standardInput: .null, standardOutput: .pipe, standardError: .null)
    }

    /// Reads until `done` holds for everything read so far (or the stream ends); returns it.
    func read(until done: @escaping @Sendable (String) -> Bool) async -> String {
        await BlockingExecutor.shared.run("test.serve.events") { [self] in
            while true {
                let text = seen.withLock { $0 }
                if done(text) { return text }
                guard let output = child.standardOutput else { return text }
                let chunk = output.readRetryingInterruptions(upTo: 65536)
                if chunk.isEmpty { return text }
                seen.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
    }

    func stop() {
        child.terminate()
        _ = child.wait()
    }

    struct Event {
        var id: String
        var event: String
        var data: [String: Any]
    }

    /// The events in a text/event-stream text (comments skipped).
    static func events(_ text: String) -> [Event] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var fields: [String: String] = [:]
            for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                fields[String(parts[0])] = String(parts[1].dropFirst())
            }
            guard let id = fields["id"], let event = fields["event"],
                  let data = fields["data"].flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }) else { return nil }
            return Event(id: id, event: event, data: data)
        }
    }
}
