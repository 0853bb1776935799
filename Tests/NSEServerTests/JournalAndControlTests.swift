import Foundation
import NSEServer
import Testing

/// The journal (nothing accepted is lost, a restart serves the same history) and the control API.
@Suite(.timeLimit(.minutes(2)))
struct JournalAndControlTests {
    @Test func acceptedPushIsInTheJournalWhenTheAnswerArrives() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await apns(fixture, headers: ["apns-id": "123E4567-E89B-12D3-A456-426614174001"])
        #expect(answer.status == 200)
        // Read at once, before anything else is asked of the server.
        let journal = try String(contentsOf: fixture.data.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(journal.contains(#""id":"123E4567-E89B-12D3-A456-426614174001""#))
        #expect(journal.contains(#""type":"push""#))
    }

    @Test func restartedServerServesTheSameHistory() async throws {
        let first = try await ServeFixture.start()
        let id = "123E4567-E89B-12D3-A456-426614174002"
        #expect(try await apns(first, headers: ["apns-id": id]).status == 200)
        let before = try await first.notifications()
        await first.stop()

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let after = try await second.notifications()
        #expect(after.count == 1)
        #expect(after.first?["id"] as? String == id)
        #expect(after.first?["status"] as? String == "delivered")
        #expect((after.first?["phone"] as? [String: Any])?["shown"] as? Bool == (before.first?["phone"] as? [String: Any])?["shown"] as? Bool)
    }

    /// A push journaled as accepted whose delivery was never recorded (the server stopped mid-pipeline) is pending,
    /// never dropped: a restart runs it through the pipeline again.
    @Test func pendingPushIsDeliveredAfterARestart() async throws {
        let first = try await ServeFixture.start()
        #expect(try await apns(first).status == 200)
        _ = try await first.notifications()
        await first.stop()
        // Keep only the push's line: as if the server had stopped before the pipeline finished.
        let journalURL = first.data.appendingPathComponent("journal.jsonl")
        let lines = try String(contentsOf: journalURL, encoding: .utf8).split(separator: "\n")
        let pushOnly = lines.filter { $0.contains(#""type":"push""#) }
        #expect(pushOnly.count == 1)
        try Data((pushOnly.joined(separator: "\n") + "\n").utf8).write(to: journalURL)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let after = try await second.notifications()
        #expect(after.count == 1)
        #expect(after.first?["status"] as? String == "delivered")
    }

    @Test func aTornLastLineIsSkippedNotFatal() async throws {
        let first = try await ServeFixture.start()
        #expect(try await apns(first).status == 200)
        _ = try await first.notifications()
        await first.stop()
        let handle = try FileHandle(forWritingTo: first.data.appendingPathComponent("journal.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"type":"push","seq":9,"id":"cut"#.utf8))
        try handle.close()

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        #expect(second.server.skippedJournalLines == 1)
        #expect(try await second.notifications().count == 1)
    }

    @Test func clearForgetsEveryPushAndSurvivesARestart() async throws {
        let fixture = try await ServeFixture.start()
        #expect(try await apns(fixture).status == 200)
        #expect(try await fixture.notifications().count == 1)
        let cleared = try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/state"])
        #expect(cleared.status == 204)
        #expect(try await fixture.notifications().isEmpty)
        await fixture.stop()
        let restarted = try await ServeFixture.start(data: fixture.data)
        defer { Task { await restarted.stop() } }
        #expect(try await restarted.notifications().isEmpty)
    }

    @Test func notificationsAreNewestFirst() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        for title in ["first", "second", "third"] {
            #expect(try await apns(fixture, payload: #"{"aps":{"alert":{"title":"\#(title)"}}}"#).status == 200)
        }
        let titles = try await fixture.notifications().compactMap { (($0["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String }
        #expect(titles == ["third", "second", "first"])
        let limited = try await curl([fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=2"])
        let newest = (limited.json?["notifications"] as? [[String: Any]])?.compactMap { (($0["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String }
        #expect(newest == ["third", "second"])
        #expect(try await curl([fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=0"]).status == 400)
    }

    @Test func aPushIsFoundByItsApnsID() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let id = "123E4567-E89B-12D3-A456-426614174009"
        #expect(try await apns(fixture, headers: ["apns-id": id]).status == 200)
        #expect(try await apns(fixture).status == 200)
        _ = try await fixture.notifications()
        let found = try await curl([fixture.base + "/emulator/v1/messages/\(id)"])
        let list = try #require(found.json?["notifications"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["id"] as? String == id)
        #expect(list.first?["device"] as? String == ServeFixture.token)
        #expect(list.first?["status"] as? String == "delivered")
        #expect(try await curl([fixture.base + "/emulator/v1/messages/no-such-id"]).status == 404)
    }

    @Test func devicesAreListedAndUnknownDevicesAre404() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let devices = try #require(try await curl([fixture.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        #expect(devices.compactMap { $0["name"] as? String } == ["Ana's iPhone", "Carl's iPhone", "Ben's Pixel"])
        #expect(try await curl([fixture.base + "/emulator/v1/devices/ffff/notifications"]).status == 404)
    }

    /// Section 9: with notifications denied APNs still accepts the push; the phone shows nothing.
    @Test func deniedNotificationsAreAcceptedButNotShown() async throws {
        let devices = """
            {"devices": [{"name": "Dee's iPhone", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)",
              "settings": {"authorization": "denied"}}]}
            """
        let fixture = try await ServeFixture.start(devices: devices)
        defer { Task { await fixture.stop() } }
        #expect(try await apns(fixture).status == 200)
        let phone = try #require(try await fixture.notifications().first?["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == false)
    }

    @Test func provisionalNotificationsGoQuietlyToNotificationCenter() async throws {
        let devices = """
            {"devices": [{"name": "Pia's iPhone", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)",
              "settings": {"authorization": "provisional"}}]}
            """
        let fixture = try await ServeFixture.start(devices: devices)
        defer { Task { await fixture.stop() } }
        #expect(try await apns(fixture, payload: #"{"aps":{"alert":"Hi","sound":"default","badge":2}}"#).status == 200)
        let phone = try #require(try await fixture.notifications().first?["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == true)
        #expect(phone["places"] as? [String] == ["notificationCenter"])
        let content = try #require(phone["content"] as? [String: Any])
        #expect(content["sound"] == nil)
        #expect(content["badge"] == nil)
    }

    @Test func devicesFileErrorsNameTheProblem() throws {
        let cases: [(String, String)] = [
            (#"{"devices": [{"name": "x"}]}"#, "neither `apns` nor `fcm`"),
            (#"{"devices": [{"apns": {"token": "zz"}, "bundleId": "a"}]}"#, "not hexadecimal"),
            (#"{"devices": [{"apns": {"token": "aa"}}]}"#, "no `bundleId`"),
            (#"{"devices": [{"apns": {"token": "aa"}, "bundleId": "a", "extension": {"sdk": "nope"}}]}"#, "`extension.sdk`"),
            (#"{"devices": [{"apns": {"token": "aa", "environment": "staging"}, "bundleId": "a"}]}"#, "devices[0].apns.environment"),
            (#"{"devices": "#, "not valid JSON"),
        ]
        for (text, expected) in cases {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-devices-\(UUID().uuidString).json")
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            do {
                _ = try DevicesFile.read(file)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }
}

/// Many pushes at once over one HTTP/2 connection: every one is delivered, none stays pending.
@Suite(.timeLimit(.minutes(3)))
struct ConcurrentPushTests {
    @Test func twoHundredConcurrentPushesAreAllDelivered() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let sent = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":"Hi"}}"#, "--concurrent", "200",
        ])
        #expect(sent["statuses"] as? [Int] == Array(repeating: 200, count: 200))
        let shown = try await fixture.notifications()
        #expect(shown.count == 200)
        #expect(shown.filter { $0["status"] as? String == "delivered" }.count == 200)
        // Newest first: the journal's sequence numbers, descending.
        let seqs = shown.compactMap { $0["seq"] as? Int }
        #expect(seqs == seqs.sorted(by: >))
    }
}
