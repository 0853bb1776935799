import Foundation
import NSEServer
import Testing

/// Devices and FCM topics changed through the control API, and topic and condition messages reaching every
/// subscribed device, as a backend's fan-out code relies on.
@Suite(.timeLimit(.minutes(10)))
struct DeviceControlTests {
    static let ios2 = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

    /// An FCM message name as one path segment.
    static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "/", with: "%2F")
    }

    static func control(_ fixture: ServeFixture, _ method: String, _ path: String, _ body: String? = nil) async throws -> CurlAnswer {
        var arguments = ["-X", method]
        if let body { arguments += ["-H", "content-type: application/json", "--data-binary", body] }
        return try await curl(arguments + [fixture.base + "/emulator/v1/" + path])
    }

    @Test func addedDeviceIsReachableChangedAndRemoved() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // Unknown at first: APNs's answer for an unknown token.
        #expect(try await apns(fixture, token: Self.ios2).json?["reason"] as? String == "BadDeviceToken")

        let added = try await Self.control(fixture, "POST", "devices", """
            {"name": "Dee's iPhone", "apns": {"token": "\(Self.ios2)"}, "bundleId": "\(ServeFixture.topic)", "settings": {"sound": false}}
            """)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        #expect((added.json?["device"] as? [String: Any])?["key"] as? String == Self.ios2)
        #expect(try await apns(fixture, token: Self.ios2).status == 200)

        let changed = try await Self.control(fixture, "PATCH", "devices/\(Self.ios2)", #"{"settings": {"authorization": "denied"}, "appState": "foreground"}"#)
        #expect(changed.status == 200)
        let settings = (changed.json?["device"] as? [String: Any])?["settings"] as? [String: Any]
        // Merged key by key: the earlier `sound: false` stays.
        #expect(settings?["authorization"] as? String == "denied")
        #expect(settings?["sound"] as? Bool == false)
        #expect(try await apns(fixture, token: Self.ios2).status == 200)
        let phones = try await fixture.notifications(Self.ios2).compactMap { $0["phone"] as? [String: Any] }
        // Newest first: the push after the change shows nothing, the one before it was shown.
        #expect(phones.map { $0["shown"] as? Bool } == [false, true])

        #expect(try await Self.control(fixture, "DELETE", "devices/\(Self.ios2)").status == 200)
        #expect(try await apns(fixture, token: Self.ios2).json?["reason"] as? String == "BadDeviceToken")
    }

    @Test func badChangesGetClearAnswers() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // A token another device has, a device without a token, a tokens change, an unknown setting value.
        #expect(try await Self.control(fixture, "POST", "devices", #"{"apns": {"token": "\#(ServeFixture.token)"}, "bundleId": "x.y"}"#).status == 409)
        let noToken = try await Self.control(fixture, "POST", "devices", #"{"name": "Nobody"}"#)
        #expect(noToken.status == 400)
        #expect((noToken.json?["error"] as? String)?.contains("neither `apns` nor `fcm`") == true)
        #expect(try await Self.control(fixture, "PATCH", "devices/\(ServeFixture.token)", #"{"apns": {"token": "00"}}"#).status == 400)
        let bad = try await Self.control(fixture, "PATCH", "devices/\(ServeFixture.token)", #"{"settings": {"previews": "sometimes"}}"#)
        #expect(bad.status == 400)
        #expect((bad.json?["error"] as? String)?.contains("settings.previews") == true)
        #expect(try await Self.control(fixture, "PATCH", "devices/nobody", #"{"appState": "foreground"}"#).status == 404)
        #expect(try await Self.control(fixture, "PUT", "devices/\(ServeFixture.fcmToken)/topics/bad%20topic").status == 400)
        #expect(try await Self.control(fixture, "PUT", "devices/\(ServeFixture.productionToken)/topics/news").status == 400)
    }

    @Test func changesSurviveARestartAndAClearUndoesThem() async throws {
        let first = try await ServeFixture.start()
        #expect(try await Self.control(first, "PUT", "devices/\(ServeFixture.androidToken)/topics/sale").status == 200)
        #expect(try await Self.control(first, "DELETE", "devices/\(ServeFixture.productionToken)").status == 200)
        await first.stop(keepingData: true)
        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let devices = try #require(try await curl([second.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        let pixel = devices.first { $0["key"] as? String == ServeFixture.androidToken }
        #expect((pixel?["fcm"] as? [String: Any])?["topics"] as? [String] == ["sale"])
        #expect(try await Self.control(second, "DELETE", "state").status == 204)
        let reset = try #require(try await curl([second.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        #expect(reset.count == 3)
    }

    @Test func topicMessageReachesEverySubscribedDeviceWithANumericMessageName() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // Ana's iPhone is subscribed to "news" in the devices file; Ben's Pixel subscribes now.
        #expect(try await Self.control(fixture, "PUT", "devices/\(ServeFixture.androidToken)/topics/news").status == 200)
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "topic", "news"])
        let name = try #require(sent["name"] as? String, "\(sent)")
        let id = try #require(name.split(separator: "/").last)
        #expect(name.hasPrefix("projects/\(ServeFixture.project)/messages/"))
        #expect(!id.isEmpty && id.allSatisfy(\.isNumber), "FCM names a topic message with a number: \(name)")
        let reached = try #require(try await curl([fixture.base + "/emulator/v1/messages/\(Self.escaped(name))"]).json?["notifications"] as? [[String: Any]])
        #expect(Set(reached.compactMap { $0["device"] as? String }) == [ServeFixture.token, ServeFixture.androidToken])

        // Unsubscribed: the next one reaches Ana's iPhone only.
        #expect(try await Self.control(fixture, "DELETE", "devices/\(ServeFixture.androidToken)/topics/news").status == 200)
        let again = try #require(try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "topic", "news"])["name"] as? String)
        let second = try #require(try await curl([fixture.base + "/emulator/v1/messages/\(Self.escaped(again))"]).json?["notifications"] as? [[String: Any]])
        #expect(second.compactMap { $0["device"] as? String } == [ServeFixture.token])
    }

    /// A topic of more devices than are journaled at once (`FCMEndpoint.fanOutWidth`, 64): every subscriber gets the
    /// message exactly once, each as a push of its own, and each is delivered by the time the answer arrives (a text
    /// notification waits on nothing).
    @Test func aTopicOfHundredsOfDevicesReachesEachOnce() async throws {
        let tokens = (1...300).map { String(format: "%064x", $0) }
        let devices = tokens.enumerated().map { index, token in
            #"{"name": "Phone \#(index)", "apns": {"token": "\#(token)"}, "bundleId": "\#(ServeFixture.topic)", "fcm": {"token": "crowd-\#(index)", "project": "\#(ServeFixture.project)", "topics": ["crowd"]}}"#
        }
        let fixture = try await ServeFixture.start(devices: #"{"devices": [\#(devices.joined(separator: ","))]}"#)
        defer { Task { await fixture.stop() } }
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "topic", "crowd"])
        let name = try #require(sent["name"] as? String, "\(sent)")
        let reached = try #require(try await curl([fixture.base + "/emulator/v1/messages/\(Self.escaped(name))"]).json?["notifications"] as? [[String: Any]])
        #expect(reached.count == tokens.count)
        #expect(Set(reached.compactMap { $0["device"] as? String }) == Set(tokens))
        #expect(Set(reached.compactMap { $0["seq"] as? Int }).count == tokens.count)
        #expect(reached.allSatisfy { $0["status"] as? String == "delivered" }, "\(reached.filter { $0["status"] as? String != "delivered" }.count) pending")
        #expect(try fixture.pushesDeliveredInTheirWrite(id: name) == tokens.count)
        for token in [tokens[0], tokens[150], tokens[299]] {
            let shown = try await fixture.notifications(token)
            #expect(shown.count == 1 && shown.first?["status"] as? String == "delivered" && shown.first?["id"] as? String == name)
        }
    }

    @Test(arguments: [
        ("'news' in topics && 'sale' in topics", [DeviceControlTests.ios2]),
        ("'news' in topics || 'sale' in topics", [ServeFixture.token, DeviceControlTests.ios2, ServeFixture.androidToken]),
        ("'news' in topics && !('sale' in topics)", [ServeFixture.token]),
        ("!('news' in topics)", [ServeFixture.androidToken]),
        // Left to right, as Firebase documents: ('sale' || 'news') && 'news'.
        ("'sale' in topics || 'news' in topics && 'news' in topics", [ServeFixture.token, DeviceControlTests.ios2]),
    ])
    func conditionReachesTheDevicesItMatches(condition: String, expected: [String]) async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // Ana: news. Dee: news and sale. Ben's Pixel: sale. Carl has no FCM token.
        #expect(try await Self.control(fixture, "POST", "devices", """
            {"name": "Dee's iPhone", "apns": {"token": "\(Self.ios2)"}, "bundleId": "\(ServeFixture.topic)",
             "fcm": {"token": "dee-token", "project": "\(ServeFixture.project)", "topics": ["news", "sale"]}}
            """).status == 201)
        #expect(try await Self.control(fixture, "PUT", "devices/\(ServeFixture.androidToken)/topics/sale").status == 200)
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "condition", condition])
        let name = try #require(sent["name"] as? String, "\(sent)")
        let reached = try await curl([fixture.base + "/emulator/v1/messages/\(Self.escaped(name))"]).json?["notifications"] as? [[String: Any]] ?? []
        #expect(Set(reached.compactMap { $0["device"] as? String }) == Set(expected))
    }

    @Test(arguments: [
        "'news' in topics &&",
        "\"news\" in topics",
        "'news' in topics & 'sale' in topics",
        "('news' in topics",
        "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics",
        "'news' topics",
        String(repeating: "(", count: 40) + "'news' in topics" + String(repeating: ")", count: 40),
    ])
    func badConditionIsInvalidArgument(condition: String) async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "condition", condition])
        #expect(sent["exception"] as? String == "InvalidArgumentError", "\(sent)")
        #expect(sent["http_status"] as? Int == 400)
        let token = try #require(try await curl(["--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "--data-urlencode", "assertion=\(providerToken())", fixture.base + "/token"]).json?["access_token"] as? String)
        let body = try JSONSerialization.data(withJSONObject: ["message": ["condition": condition, "notification": ["title": "Hi"]]])
        let raw = try await curl(["-H", "authorization: Bearer \(token)", "--data-binary", String(decoding: body, as: UTF8.self), fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send"])
        let details = (raw.json?["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
        let fields = details.compactMap { $0["fieldViolations"] as? [[String: Any]] }.joined().compactMap { $0["field"] as? String }
        #expect(fields == ["message.condition"])
    }
}
