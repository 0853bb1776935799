import Foundation
import NSEServer
import Testing

/// The journal (nothing accepted is lost, a restart serves the same history) and the control API.
@Suite(.timeLimit(.minutes(10)))
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
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let after = try await second.notifications()
        #expect(after.count == 1)
        #expect(after.first?["id"] as? String == id)
        #expect(after.first?["status"] as? String == "delivered")
        #expect((after.first?["phone"] as? [String: Any])?["shown"] as? Bool == (before.first?["phone"] as? [String: Any])?["shown"] as? Bool)
    }

    /// A device the control API added and an app it uninstalled are journal lines read back at start with the
    /// history on disk: after a restart the device is listed with its notifications and still reachable, and the
    /// uninstalled app still answers 410 with the same time.
    @Test func addedDeviceAndUninstallSurviveARestart() async throws {
        let first = try await ServeFixture.start()
        let added = String(repeating: "d", count: 64)
        let device = #"{"name": "Dee's iPhone", "apns": {"token": "\#(added)"}, "bundleId": "\#(ServeFixture.topic)"}"#
        #expect(try await DeviceControlTests.control(first, "POST", "devices", device).status == 201)
        let id = "123E4567-E89B-12D3-A456-426614174009"
        #expect(try await apns(first, token: added, headers: ["apns-id": id]).status == 200)
        #expect(try await first.notifications(added).count == 1)
        let uninstalled = try await DeviceControlTests.control(first, "POST", "devices/\(ServeFixture.token)/uninstall")
        let at = try #require(uninstalled.json?["uninstalledAt"] as? Int)
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let devices = try #require(try await curl([second.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        #expect(devices.contains { $0["key"] as? String == added && $0["name"] as? String == "Dee's iPhone" })
        let history = try await second.notifications(added)
        #expect(history.map { $0["id"] as? String } == [id])
        #expect(history.first?["status"] as? String == "delivered")
        #expect(try await apns(second, token: added).status == 200)
        let refused = try await apns(second)
        #expect(refused.status == 410)
        #expect(refused.json?["timestamp"] as? Int == at)
    }

    /// A push journaled as accepted whose delivery was never recorded (the server stopped mid-pipeline) is pending,
    /// never dropped: a restart runs it through the pipeline again.
    @Test func pendingPushIsDeliveredAfterARestart() async throws {
        let first = try await ServeFixture.start()
        #expect(try await apns(first).status == 200)
        _ = try await first.notifications()
        await first.stop(keepingData: true)
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

    /// A data folder whose journal holds one delivered push, then half a line, as a crash mid-write leaves it.
    static func journalWithATornLastLine() async throws -> URL {
        let first = try await ServeFixture.start()
        #expect(try await apns(first).status == 200)
        _ = try await first.notifications()
        await first.stop(keepingData: true)
        let handle = try FileHandle(forWritingTo: first.data.appendingPathComponent("journal.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"type":"push","seq":9,"id":"cut"#.utf8))
        try handle.close()
        return first.data
    }

    @Test func aTornLastLineIsSkippedNotFatal() async throws {
        let data = try await Self.journalWithATornLastLine()
        let second = try await ServeFixture.start(data: data)
        defer { Task { await second.stop() } }
        #expect(second.server.skippedJournalLines == 1)
        #expect(try await second.notifications().count == 1)
    }

    /// The torn line is cut off at the restart: the next push's line starts a line of its own, so a second
    /// restart reads both pushes and skips nothing.
    @Test func aTornLastLineIsCutSoTheNextPushIsKept() async throws {
        let data = try await Self.journalWithATornLastLine()
        let second = try await ServeFixture.start(data: data)
        #expect(second.server.skippedJournalLines == 1)
        #expect(try await apns(second).status == 200)
        #expect(try await second.notifications().count == 2)
        await second.stop(keepingData: true)

        let third = try await ServeFixture.start(data: data)
        defer { Task { await third.stop() } }
        #expect(third.server.skippedJournalLines == 0)
        let after = try await third.notifications()
        #expect(after.compactMap { $0["status"] as? String } == ["delivered", "delivered"])
    }

    /// Concurrent pushes reach the journal in the order their writes finished, not always in `seq` order: a
    /// restart still lists them newest first by `seq`.
    @Test func aRestartListsNewestFirstWhateverTheJournalsOrder() async throws {
        let first = try await ServeFixture.start()
        for title in ["first", "second", "third"] {
            #expect(try await apns(first, payload: #"{"aps":{"alert":{"title":"\#(title)"}}}"#).status == 200)
        }
        _ = try await first.notifications()
        await first.stop(keepingData: true)
        let journalURL = first.data.appendingPathComponent("journal.jsonl")
        var lines = try String(contentsOf: journalURL, encoding: .utf8).split(separator: "\n").map(String.init)
        let pushes = lines.indices.filter { lines[$0].contains(#""type":"push""#) }
        #expect(pushes.count == 3)
        lines.swapAt(pushes[0], pushes[2])
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journalURL)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let after = try await second.notifications()
        #expect(after.compactMap { $0["seq"] as? Int } == [3, 2, 1])
        let titles = after.compactMap { (($0["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String }
        #expect(titles == ["third", "second", "first"])
    }

    /// A clear empties the journal but numbering goes on, across a restart too: an events client's Last-Event-ID
    /// and a test's remembered `seq` never name a new push.
    @Test func numberingGoesOnAfterAClearAndARestart() async throws {
        let fixture = try await ServeFixture.start()
        #expect(try await apns(fixture).status == 200)
        #expect(try await fixture.notifications().first?["seq"] as? Int == 1)
        #expect(try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/state"]).status == 204)
        await fixture.stop(keepingData: true)
        let restarted = try await ServeFixture.start(data: fixture.data)
        defer { Task { await restarted.stop() } }
        #expect(try await apns(restarted).status == 200)
        let after = try await restarted.notifications()
        #expect(after.compactMap { $0["seq"] as? Int } == [2])
    }

    @Test func clearForgetsEveryPushAndSurvivesARestart() async throws {
        let fixture = try await ServeFixture.start()
        #expect(try await apns(fixture).status == 200)
        #expect(try await fixture.notifications().count == 1)
        let cleared = try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/state"])
        #expect(cleared.status == 204)
        #expect(try await fixture.notifications().isEmpty)
        await fixture.stop(keepingData: true)
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

    /// A long list (here about 200 KB of JSON, more than three of the server's 64 KiB pages) is sent as it is
    /// read, not built whole in memory first: over HTTP/1.1 it comes chunked, without a length, and it is the
    /// same list, newest first, complete, over HTTP/1.1 and HTTP/2; a short one still comes whole.
    @Test func aLongListOfNotificationsIsStreamed() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let payload = #"{"aps":{"alert":"Hi"},"padding":"\#(String(repeating: "p", count: 2000))"}"#
        let sent = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, payload, "--concurrent", "60",
        ])
        #expect(sent["statuses"] as? [Int] == Array(repeating: 200, count: 60))
        let url = fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?settled=1&limit=100000"
        for version in ["--http1.1", "--http2-prior-knowledge"] {
            let long = try await curl([version, url])
            #expect(long.status == 200)
            #expect(long.headers["content-length"] == nil)
            if version == "--http1.1" { #expect(long.headers["transfer-encoding"] == "chunked") }
            let list = try #require(long.json?["notifications"] as? [[String: Any]])
            #expect(list.count == 60)
            let seqs = list.compactMap { $0["seq"] as? Int }
            #expect(seqs == seqs.sorted(by: >) && Set(seqs).count == 60)
            #expect(list.allSatisfy { $0["status"] as? String == "delivered" })
            #expect((long.json?["device"] as? [String: Any])?["key"] as? String == ServeFixture.token)
        }
        let short = try await curl([fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=3"])
        #expect(short.headers["content-length"] == String(short.body.count))
        #expect((short.json?["notifications"] as? [[String: Any]])?.count == 3)
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

    /// FCM's message name (with its slashes percent-encoded) finds the push, after a restart too.
    @Test func aPushIsFoundByItsFCMMessageName() async throws {
        let first = try await ServeFixture.start()
        let token = try #require(try await curl([
            "-X", "POST", first.base + "/token", "--data",
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(providerToken())",
        ]).json?["access_token"] as? String)
        let sent = try await curl([
            "-X", "POST", first.base + "/v1/projects/\(ServeFixture.project)/messages:send", "-H", "authorization: Bearer \(token)",
            "--data", #"{"message": {"token": "\#(ServeFixture.fcmToken)", "notification": {"title": "Hi"}}}"#,
        ])
        let name = try #require(sent.json?["name"] as? String)
        _ = try await first.notifications()
        await first.stop(keepingData: true)
        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        let found = try #require(try await curl([second.base + "/emulator/v1/messages/\(encoded)"]).json?["notifications"] as? [[String: Any]])
        #expect(found.compactMap { $0["id"] as? String } == [name])
        #expect(found.first?["service"] as? String == "fcm")
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
@Suite(.timeLimit(.minutes(10)))
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
