import Foundation
import NSEServer
import Testing

/// A backend's dead-token handling: once the app is uninstalled, APNs answers 410 Unregistered with the time the
/// token stopped being valid, and FCM 404 UNREGISTERED, which firebase-admin raises as UnregisteredError.
@Suite(.timeLimit(.minutes(10)))
struct TokenLifecycleTests {
    @Test func uninstalledAppsTokenIsUnregisteredWithItsTimestamp() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let fixture = try await ServeFixture.start(clock: { now })
        defer { Task { await fixture.stop() } }
        #expect(try await apns(fixture, authorization: "bearer \(providerToken(issuedAt: now))").status == 200)
        let uninstall = try await curl(["-X", "POST", fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/uninstall"])
        #expect(uninstall.status == 200)
        #expect(uninstall.json?["uninstalledAt"] as? Int == 1_800_000_000_000)

        let answer = try await apns(fixture, authorization: "bearer \(providerToken(issuedAt: now))")
        #expect(answer.status == 410)
        #expect(answer.json?["reason"] as? String == "Unregistered")
        #expect(answer.json?["timestamp"] as? Int == 1_800_000_000_000)
        #expect(answer.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
        // The push before the uninstall stays in the history; nothing after it is added.
        #expect(try await fixture.notifications().count == 1)
    }

    @Test func uninstallSurvivesARestart() async throws {
        let first = try await ServeFixture.start()
        #expect(try await curl(["-X", "POST", first.base + "/emulator/v1/devices/\(ServeFixture.token)/uninstall"]).status == 200)
        await first.stop(keepingData: true)
        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        #expect(try await apns(second).status == 410)
    }

    @Test func firebaseAdminRaisesUnregisteredErrorOnceUninstalled() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await curl(["-X", "POST", fixture.base + "/emulator/v1/devices/\(ServeFixture.fcmToken)/uninstall"]).status == 200)
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        #expect(sent["exception"] as? String == "UnregisteredError")
        #expect(sent["http_status"] as? Int == 404)
        // validate_only reports it too.
        let dryRun = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "dry_run", ServeFixture.fcmToken])
        #expect(dryRun["exception"] as? String == "UnregisteredError")
    }

    @Test func clearReinstallsEveryApp() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await curl(["-X", "POST", fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/uninstall"]).status == 200)
        #expect(try await apns(fixture).status == 410)
        #expect(try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/state"]).status == 204)
        #expect(try await apns(fixture).status == 200)
    }
}
