import Foundation
import NSEServer
import Testing

/// A backend's FCM token housekeeping: a rotated token's old value answers UNREGISTERED, and a token inactive past
/// FCM's stale period (270 days) expires, tested by moving the emulator's clock instead of waiting.
@Suite(.timeLimit(.minutes(10)))
struct FCMTokenLifecycleTests {
    static func send(_ fixture: ServeFixture, _ token: String) async throws -> [String: Any] {
        try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", token])
    }

    static func post(_ fixture: ServeFixture, _ path: String, _ body: String) async throws -> CurlAnswer {
        try await curl(["-H", "content-type: application/json", "--data-binary", body, fixture.base + "/emulator/v1/" + path])
    }

    @Test func rotatedTokensOldValueIsUnregisteredAndTheNewOneDelivers() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await Self.send(fixture, ServeFixture.androidToken)["name"] is String)
        let rotated = try await Self.post(fixture, "devices/\(ServeFixture.androidToken)/rotate-fcm-token", "")
        #expect(rotated.status == 200)
        let newToken = try #require(rotated.json?["token"] as? String)
        #expect(rotated.json?["previousToken"] as? String == ServeFixture.androidToken)
        #expect(newToken.contains(":APA91b"))

        let old = try await Self.send(fixture, ServeFixture.androidToken)
        #expect(old["exception"] as? String == "UnregisteredError", "\(old)")
        #expect(old["http_status"] as? Int == 404)
        #expect(try await Self.send(fixture, newToken)["name"] is String)
        // The device keeps its place in the control API: both pushes are in its history, under either token.
        #expect(try await fixture.notifications(newToken).count == 2)
        #expect(try await fixture.notifications(ServeFixture.androidToken).count == 2)

        // A token of one's choosing; one already used is refused.
        #expect(try await Self.post(fixture, "devices/\(newToken)/rotate-fcm-token", #"{"token": "ben-third:APA91bX"}"#).json?["token"] as? String == "ben-third:APA91bX")
        // A second rotation keeps the device's key too: its history stays listed, under any of its tokens.
        #expect(try await fixture.notifications("ben-third:APA91bX").count == 2)
        #expect(try await fixture.notifications(newToken).count == 2)
        #expect(try await Self.post(fixture, "devices/ben-third:APA91bX/rotate-fcm-token", #"{"token": "\#(ServeFixture.androidToken)"}"#).status == 409)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.productionToken)/rotate-fcm-token", "").status == 400)
    }

    @Test func rotationSurvivesARestart() async throws {
        let first = try await ServeFixture.start()
        let newToken = try #require(try await Self.post(first, "devices/\(ServeFixture.fcmToken)/rotate-fcm-token", "").json?["token"] as? String)
        await first.stop(keepingData: true)
        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        #expect(try await Self.send(second, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        #expect(try await Self.send(second, newToken)["name"] is String)
    }

    @Test func tokenInactiveLongerThanFCMsStalePeriodExpires() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let fixture = try await ServeFixture.start(clock: { start })
        defer { Task { await fixture.stop() } }
        #expect(try await Self.post(fixture, "clock", #"{"advance": \#(269 * 86400)}"#).json?["now"] as? Int == (1_800_000_000 + 269 * 86400) * 1000)
        #expect(try await Self.send(fixture, ServeFixture.androidToken)["name"] is String)
        // Topic messages skip an expired token too.
        #expect(try await Self.post(fixture, "clock", #"{"advance": \#(2 * 86400)}"#).status == 200)
        let expired = try await Self.send(fixture, ServeFixture.androidToken)
        #expect(expired["exception"] as? String == "UnregisteredError", "\(expired)")
        // A change through the control API does not revive it; a rotation gives a fresh token.
        #expect(try await curl(["-X", "PATCH", "--data-binary", #"{"appState": "foreground"}"#, fixture.base + "/emulator/v1/devices/\(ServeFixture.androidToken)"]).status == 200)
        #expect(try await Self.send(fixture, ServeFixture.androidToken)["exception"] as? String == "UnregisteredError")
        let fresh = try #require(try await Self.post(fixture, "devices/\(ServeFixture.androidToken)/rotate-fcm-token", "").json?["token"] as? String)
        #expect(try await Self.send(fixture, fresh)["name"] is String)
        // A clear sets the clock back to the configured one: every token is active again.
        #expect(try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/state"]).status == 204)
        #expect(try await curl([fixture.base + "/emulator/v1/clock"]).json?["now"] as? Int == 1_800_000_000_000)
        #expect(try await Self.send(fixture, ServeFixture.androidToken)["name"] is String)
    }

    @Test func activeDeviceKeepsItsToken() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let fixture = try await ServeFixture.start(clock: { start })
        defer { Task { await fixture.stop() } }
        // The app subscribes to a topic 200 days in (the SDK talks to FCM): the 270 days count from then.
        #expect(try await Self.post(fixture, "clock", #"{"advance": \#(200 * 86400)}"#).status == 200)
        #expect(try await curl(["-X", "PUT", fixture.base + "/emulator/v1/devices/\(ServeFixture.androidToken)/topics/sale"]).status == 200)
        #expect(try await Self.post(fixture, "clock", #"{"now": \#((1_800_000_000 + 400 * 86400) * 1000)}"#).status == 200)
        #expect(try await Self.send(fixture, ServeFixture.androidToken)["name"] is String)
        #expect(try await Self.send(fixture, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        for body in [#"{"advance": "soon"}"#, #"{"now": -1}"#, #"{"now": 1, "advance": 1}"#, "{}"] {
            #expect(try await Self.post(fixture, "clock", body).status == 400, "\(body)")
        }
    }
}
