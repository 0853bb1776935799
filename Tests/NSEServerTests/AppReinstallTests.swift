import Foundation
import NSEServer
import Testing

/// A user deletes the app and installs it again: the new installation has new tokens (a new APNs device token, FCM
/// registration token and Firebase Installation ID), and the old ones go on answering as the uninstalled app's did,
/// so a backend that still holds them learns to drop them.
@Suite(.timeLimit(.minutes(10)))
struct AppReinstallTests {
    static func post(_ fixture: ServeFixture, _ path: String, _ body: String = "") async throws -> CurlAnswer {
        try await curl(["-X", "POST", "--data-binary", body, fixture.base + "/emulator/v1/" + path])
    }

    static func fcmSend(_ fixture: ServeFixture, _ target: String, scenario: String = "send") async throws -> [String: Any] {
        try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, scenario, target])
    }

    @Test func reinstalledAppHasNewTokensAndTheOldOnesStayUnregistered() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let fixture = try await ServeFixture.start(clock: { now })
        defer { Task { await fixture.stop() } }
        let bearer = "bearer \(providerToken(issuedAt: now))"
        #expect(try await curl(["-X", "PATCH", "--data-binary", #"{"fcm": {"fid": "cAnaInstallation0000001"}}"#, fixture.base + "/emulator/v1/devices/\(ServeFixture.token)"]).status == 200)
        #expect(try await apns(fixture, authorization: bearer).status == 200)

        // Only an uninstalled app can be installed again.
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall").status == 409)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/uninstall").json?["uninstalledAt"] as? Int == 1_800_000_000_000)
        let reinstall = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall")
        #expect(reinstall.status == 200, "\(String(decoding: reinstall.body, as: UTF8.self))")
        let device = try #require(reinstall.json?["device"] as? [String: Any])
        let apnsToken = try #require((device["apns"] as? [String: Any])?["token"] as? String)
        let fcmToken = try #require((device["fcm"] as? [String: Any])?["token"] as? String)
        let fid = try #require((device["fcm"] as? [String: Any])?["fid"] as? String)
        // APNs's 32 bytes in hexadecimal, the Firebase SDKs' forms; the device keeps its key and its settings.
        #expect(apnsToken.count == 64 && apnsToken.allSatisfy(\.isHexDigit) && apnsToken != ServeFixture.token)
        #expect(fcmToken.contains(":APA91b") && fcmToken != ServeFixture.fcmToken)
        #expect(fid.count == 22 && fid != "cAnaInstallation0000001")
        #expect(device["key"] as? String == ServeFixture.token)
        let previous = try #require(reinstall.json?["previous"] as? [String: Any])
        #expect(previous["apnsToken"] as? String == ServeFixture.token)
        #expect(previous["fcmToken"] as? String == ServeFixture.fcmToken)
        #expect(previous["fid"] as? String == "cAnaInstallation0000001")
        #expect(previous["uninstalledAt"] as? Int == 1_800_000_000_000)

        // The old APNs token: 410 Unregistered with the uninstall's time, as before the reinstall; the new one delivers.
        let old = try await apns(fixture, authorization: bearer)
        #expect(old.status == 410)
        #expect(old.json?["reason"] as? String == "Unregistered")
        #expect(old.json?["timestamp"] as? Int == 1_800_000_000_000)
        #expect(try await apns(fixture, token: apnsToken.uppercased(), authorization: bearer).status == 200)
        // FCM, through firebase-admin: the old token and installation are UNREGISTERED, the new ones deliver.
        #expect(try await Self.fcmSend(fixture, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        #expect(try await Self.fcmSend(fixture, "cAnaInstallation0000001", scenario: "send_fid")["exception"] as? String == "UnregisteredError")
        #expect(try await Self.fcmSend(fixture, fcmToken)["name"] is String)
        #expect(try await Self.fcmSend(fixture, fid, scenario: "send_fid")["name"] is String)
        // One history, under the old token and the new.
        #expect(try await fixture.notifications().count == 4)
        #expect(try await fixture.notifications(apnsToken).count == 4)
    }

    @Test func tokensOfTheCallersChoosingAndWhatIsRefused() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let first = String(repeating: "c", count: 64)
        let second = String(repeating: "e", count: 64)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/uninstall").status == 200)
        // The production iPhone's token is taken; "xyz" is no APNs token; a body key that is not a token's.
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "\#(ServeFixture.productionToken)"}"#).status == 409)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "xyz"}"#).status == 400)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", #"{"token": "\#(first)"}"#).status == 400)
        let chosen = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "\#(first)", "fcmToken": "ana-second:APA91bX"}"#)
        #expect(chosen.status == 200)
        #expect(((chosen.json?["device"] as? [String: Any])?["apns"] as? [String: Any])?["token"] as? String == first)
        #expect(((chosen.json?["device"] as? [String: Any])?["fcm"] as? [String: Any])?["token"] as? String == "ana-second:APA91bX")

        // A second uninstall and reinstall: the first reinstall's token now answers with the second uninstall's time.
        let uninstalled = try #require(try await Self.post(fixture, "devices/\(first)/uninstall").json?["uninstalledAt"] as? Int)
        // A token the device had before cannot come back.
        #expect(try await Self.post(fixture, "devices/\(first)/reinstall", #"{"apnsToken": "\#(ServeFixture.token)"}"#).status == 409)
        #expect(try await Self.post(fixture, "devices/\(first)/reinstall", #"{"apnsToken": "\#(second)"}"#).status == 200)
        let answer = try await apns(fixture, token: first)
        #expect(answer.status == 410)
        #expect(answer.json?["timestamp"] as? Int == uninstalled)
        #expect(try await apns(fixture, token: second).status == 200)
        // A token a reinstall replaced names the device in the control API, as its key does.
        let listed = try await curl([fixture.base + "/emulator/v1/devices/\(first)/notifications?settled=1"])
        #expect(listed.json?["device"].flatMap { ($0 as? [String: Any])?["key"] as? String } == ServeFixture.token)
        // No device may take a replaced token.
        let taken = #"{"name": "Dee's iPhone", "apns": {"token": "\#(first)"}, "bundleId": "\#(ServeFixture.topic)"}"#
        #expect(try await Self.post(fixture, "devices", taken).status == 409)

        // An Android phone has no APNs token to replace.
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.androidToken)/uninstall").status == 200)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.androidToken)/reinstall", #"{"apnsToken": "\#(first)"}"#).status == 400)
        let android = try await Self.post(fixture, "devices/\(ServeFixture.androidToken)/reinstall")
        #expect(android.status == 200)
        #expect((android.json?["device"] as? [String: Any])?["apns"] == nil)
        #expect(try await Self.post(fixture, "devices/\(String(repeating: "9", count: 64))/reinstall").status == 404)
    }

    @Test func reinstallSurvivesARestart() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await ServeFixture.start(clock: { now })
        let token = String(repeating: "c", count: 64)
        #expect(try await Self.post(first, "devices/\(ServeFixture.token)/uninstall").status == 200)
        #expect(try await Self.post(first, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "\#(token)", "fcmToken": "ana-second:APA91bX"}"#).status == 200)
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data, clock: { now })
        defer { Task { await second.stop() } }
        let bearer = "bearer \(providerToken(issuedAt: now))"
        let old = try await apns(second, authorization: bearer)
        #expect(old.status == 410)
        #expect(old.json?["timestamp"] as? Int == 1_800_000_000_000)
        #expect(try await apns(second, token: token, authorization: bearer).status == 200)
        #expect(try await Self.fcmSend(second, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        #expect(try await Self.fcmSend(second, "ana-second:APA91bX")["name"] is String)
        #expect(try await second.notifications(token).count == 2)
    }
}
