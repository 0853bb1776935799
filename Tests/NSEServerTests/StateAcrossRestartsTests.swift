import Foundation
import NSEServer
import Testing

/// Nothing the control API changed is lost when `nse serve --data DIR` restarts: the emulator's clock, each
/// device's activity (FCM token expiry counts from it), and the devices themselves.
@Suite(.timeLimit(.minutes(10)))
struct StateAcrossRestartsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day = 86400

    static func post(_ fixture: ServeFixture, _ path: String, _ body: String, method: String = "POST") async throws -> CurlAnswer {
        try await curl(["-X", method, "-H", "content-type: application/json", "--data-binary", body, fixture.base + "/emulator/v1/" + path])
    }

    static func clock(_ fixture: ServeFixture) async throws -> Int? {
        try await curl([fixture.base + "/emulator/v1/clock"]).json?["now"] as? Int
    }

    @Test func clockAndActivitySurviveARestart() async throws {
        // The configured clock stands still: the emulator's clock moves only as the control API moves it.
        let first = try await ServeFixture.start(clock: { Self.start })
        #expect(try await Self.post(first, "clock", #"{"advance": \#(200 * Self.day)}"#).status == 200)
        // Ben's app talks to FCM 200 days in; Ana's never does after the first start.
        #expect(try await Self.post(first, "devices/\(ServeFixture.androidToken)", #"{"appState": "foreground"}"#, method: "PATCH").status == 200)
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data, clock: { Self.start })
        #expect(try await Self.clock(second) == (1_800_000_000 + 200 * Self.day) * 1000)
        // 300 days after the first start: Ana's token is past FCM's 270 days, Ben's is 100 days from its activity.
        #expect(try await Self.post(second, "clock", #"{"advance": \#(100 * Self.day)}"#).status == 200)
        await second.stop(keepingData: true)

        let third = try await ServeFixture.start(data: first.data, clock: { Self.start })
        defer { Task { await third.stop() } }
        #expect(try await Self.clock(third) == (1_800_000_000 + 300 * Self.day) * 1000)
        #expect(try await FCMTokenLifecycleTests.send(third, ServeFixture.androidToken)["name"] is String)
        #expect(try await FCMTokenLifecycleTests.send(third, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        // A clear sets the clock back, across a restart too.
        #expect(try await curl(["-X", "DELETE", third.base + "/emulator/v1/state"]).status == 204)
        await third.stop(keepingData: true)
        let fourth = try await ServeFixture.start(data: first.data, clock: { Self.start })
        defer { Task { await fourth.stop() } }
        #expect(try await Self.clock(fourth) == 1_800_000_000_000)
        #expect(try await FCMTokenLifecycleTests.send(fourth, ServeFixture.fcmToken)["name"] is String)
    }

    @Test func deviceChangesSurviveARestart() async throws {
        let first = try await ServeFixture.start()
        let dee = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
        #expect(try await Self.post(first, "devices", #"{"name": "Dee's iPhone", "apns": {"token": "\#(dee)"}, "bundleId": "\#(ServeFixture.topic)"}"#).status == 201)
        #expect(try await Self.post(first, "devices/\(ServeFixture.token)", #"{"settings": {"sound": false}, "appState": "notRunning", "fcm": {"fid": "cAnaInstallation0000001"}}"#, method: "PATCH").status == 200)
        #expect(try await Self.post(first, "devices/\(ServeFixture.fcmToken)/topics/sale", "", method: "PUT").status == 200)
        #expect(try await Self.post(first, "devices/\(ServeFixture.productionToken)", "", method: "DELETE").status == 200)
        let before = try #require(try await curl([first.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        let after = try #require(try await curl([second.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        #expect(NSDictionary(dictionary: ["devices": after]) == NSDictionary(dictionary: ["devices": before]))
        let ana = try #require(after.first { $0["key"] as? String == ServeFixture.token })
        #expect((ana["settings"] as? [String: Any])?["sound"] as? Bool == false)
        #expect(ana["appState"] as? String == "notRunning")
        #expect((ana["fcm"] as? [String: Any])?["topics"] as? [String] == ["news", "sale"])
        #expect(after.contains { $0["key"] as? String == dee })
        #expect(!after.contains { $0["key"] as? String == ServeFixture.productionToken })
        #expect(try await python("fcm_admin_client.py", [String(second.port), ServeFixture.project, "send_fid", "cAnaInstallation0000001"])["name"] is String)
    }
}
