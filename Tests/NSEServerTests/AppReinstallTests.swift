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

    /// The device as the control API lists it now, found by any of its tokens.
    static func device(_ fixture: ServeFixture, _ token: String) async throws -> [String: Any] {
        let answer = try await curl([fixture.base + "/emulator/v1/devices/\(token)/notifications?limit=1"])
        return try #require(answer.json?["device"] as? [String: Any], "\(String(decoding: answer.body, as: UTF8.self))")
    }

    static func topics(_ device: [String: Any]) -> [String]? {
        (device["fcm"] as? [String: Any])?["topics"] as? [String]
    }

    /// What a device entry without `settings` has: the user allowed every kind of notification when asked.
    static func defaultSettings() -> NSMutableDictionary {
        [
            "authorization": "authorized", "alert": true, "sound": true, "badge": true, "lockScreen": true, "notificationCenter": true,
            "previews": "always",
        ]
    }

    /// What belonged to the deleted installation goes with it: the user's answer and switches, the app's state, and
    /// the FCM topics (a subscription is the registration token's, and the new token has none). Without a body, the
    /// new installation has what a device entry that does not give them has: the user allowed when asked again.
    @Test func aReinstalledAppStartsAsAFreshInstallDoes() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let change = #"{"settings": {"authorization": "denied", "previews": "never", "sound": false}, "appState": "foreground"}"#
        #expect(try await curl(["-X", "PATCH", "--data-binary", change, fixture.base + "/emulator/v1/devices/\(ServeFixture.token)"]).status == 200)
        #expect(try await curl(["-X", "PUT", fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/topics/sale"]).status == 200)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/uninstall").status == 200)
        let reinstall = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall")
        #expect(reinstall.status == 200, "\(String(decoding: reinstall.body, as: UTF8.self))")
        let device = try #require(reinstall.json?["device"] as? [String: Any])
        #expect((device["settings"] as? [String: Any]).map(NSDictionary.init(dictionary:)) == Self.defaultSettings())
        #expect(device["appState"] as? String == "background")
        #expect(Self.topics(device) == [])
        #expect(device["name"] as? String == "Ana's iPhone")
        let apnsToken = try #require((device["apns"] as? [String: Any])?["token"] as? String)
        // Listed so from then on, not only in the answer.
        #expect(NSDictionary(dictionary: try await Self.device(fixture, apnsToken)) == NSDictionary(dictionary: device))

        // Neither topic reaches the new installation; a push to its token is shown, the user having allowed.
        for topic in ["news", "sale"] {
            #expect(try await Self.fcmSend(fixture, topic, scenario: "topic")["name"] is String)
        }
        #expect(try await apns(fixture, token: apnsToken).status == 200)
        let notifications = try await fixture.notifications(apnsToken)
        #expect(notifications.count == 1)
        let phone = try #require(notifications.first?["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == true)
        #expect(phone["places"] as? [String] == ["banner", "lockScreen", "notificationCenter"])
    }

    /// A body says what the app's first launch did: the user's answer (as a device entry's `settings`, the rest of its
    /// switches their defaults), the app's state, the topics its code subscribed the new token to. A body the devices
    /// file's rules refuse is 400, and the app stays uninstalled.
    @Test func theFirstLaunchIsWhatTheBodySays() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.token)/uninstall").status == 200)
        let wrongAnswer = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", #"{"settings": {"authorization": "maybe"}}"#)
        #expect(wrongAnswer.status == 400)
        #expect((wrongAnswer.json?["error"] as? String)?.contains("settings.authorization") == true)
        let tooMany = "{\"topics\": [" + (0...2000).map { "\"t\($0)\"" }.joined(separator: ",") + "]}"
        for body in [#"{"topics": ["not a topic"]}"#, #"{"topics": "news"}"#, #"{"appState": "asleep"}"#, #"{"launched": true}"#, tooMany] {
            let refused = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", body)
            #expect(refused.status == 400, "\(body.prefix(60))")
            #expect(refused.json?["error"] is String)
        }
        // An iPhone without FCM has no topics to subscribe to.
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.productionToken)/uninstall").status == 200)
        #expect(try await Self.post(fixture, "devices/\(ServeFixture.productionToken)/reinstall", #"{"topics": ["news"]}"#).status == 400)

        let body = #"{"settings": {"authorization": "notDetermined", "sound": false}, "appState": "notRunning", "topics": ["sale", "offers", "sale"]}"#
        let reinstall = try await Self.post(fixture, "devices/\(ServeFixture.token)/reinstall", body)
        #expect(reinstall.status == 200, "\(String(decoding: reinstall.body, as: UTF8.self))")
        let device = try #require(reinstall.json?["device"] as? [String: Any])
        let settings = Self.defaultSettings()
        settings["authorization"] = "notDetermined"
        settings["sound"] = false
        #expect((device["settings"] as? [String: Any]).map(NSDictionary.init(dictionary:)) == settings)
        #expect(device["appState"] as? String == "notRunning")
        #expect(Self.topics(device) == ["sale", "offers"])

        // The user has not been asked yet: APNs and FCM accept, the phone shows neither; the topic reaches the token.
        let apnsToken = try #require((device["apns"] as? [String: Any])?["token"] as? String)
        #expect(try await apns(fixture, token: apnsToken).status == 200)
        #expect(try await Self.fcmSend(fixture, "offers", scenario: "topic")["name"] is String)
        let notifications = try await fixture.notifications(apnsToken)
        #expect(notifications.compactMap { $0["service"] as? String }.sorted() == ["apns", "fcm"])
        #expect(notifications.allSatisfy { ($0["phone"] as? [String: Any])?["shown"] as? Bool == false })
    }

    /// The reinstall's journal line holds the new installation whole: a restart (from the checkpoint the stop wrote,
    /// and from the journal alone) lists the same device, settings, state and topics included; a clear forgets it.
    @Test func reinstallSurvivesARestart() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await ServeFixture.start(clock: { now })
        let token = String(repeating: "c", count: 64)
        #expect(try await Self.post(first, "devices/\(ServeFixture.token)/uninstall").status == 200)
        let body = #"{"apnsToken": "\#(token)", "fcmToken": "ana-second:APA91bX", "settings": {"authorization": "denied"}, "appState": "notRunning", "topics": ["sale"]}"#
        let reinstall = try await Self.post(first, "devices/\(ServeFixture.token)/reinstall", body)
        #expect(reinstall.status == 200)
        let reinstalled = NSDictionary(dictionary: try #require(reinstall.json?["device"] as? [String: Any]))
        #expect(reinstalled["appState"] as? String == "notRunning")
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data, clock: { now })
        #expect(second.server.startedFromCheckpoint)
        #expect(NSDictionary(dictionary: try await Self.device(second, token)) == reinstalled)
        let bearer = "bearer \(providerToken(issuedAt: now))"
        let old = try await apns(second, authorization: bearer)
        #expect(old.status == 410)
        #expect(old.json?["timestamp"] as? Int == 1_800_000_000_000)
        #expect(try await apns(second, token: token, authorization: bearer).status == 200)
        #expect(try await Self.fcmSend(second, ServeFixture.fcmToken)["exception"] as? String == "UnregisteredError")
        #expect(try await Self.fcmSend(second, "ana-second:APA91bX")["name"] is String)
        #expect(try await second.notifications(token).count == 2)
        await second.stop(keepingData: true)

        // From the journal's lines alone.
        try FileManager.default.removeItem(at: first.data.appendingPathComponent("journal.checkpoint"))
        let third = try await ServeFixture.start(data: first.data, clock: { now })
        defer { Task { await third.stop() } }
        #expect(!third.server.startedFromCheckpoint)
        #expect(NSDictionary(dictionary: try await Self.device(third, token)) == reinstalled)

        // A clear forgets the reinstall: the devices file's device is back, its topic with it.
        #expect(try await curl(["-X", "DELETE", third.base + "/emulator/v1/state"]).status == 204)
        let cleared = try await Self.device(third, ServeFixture.token)
        #expect(Self.topics(cleared) == ["news"])
        #expect((cleared["apns"] as? [String: Any])?["token"] as? String == ServeFixture.token)
        #expect(try await apns(third, token: token, authorization: bearer).json?["reason"] as? String == "BadDeviceToken")
    }

    /// The tokens reinstalls and rotations replaced are kept up to a limit (100,000 of each kind by default; 2 here):
    /// past it the oldest is forgotten and answers as a token no device ever had. The order outlives a restart.
    @Test func theOldestReplacedTokenIsForgottenPastTheLimit() async throws {
        let first = try await ServeFixture.start(retiredTokenLimit: 2)
        // Given tokens whose order sorted is not the order they were replaced in.
        let (ones, es, fs) = (String(repeating: "1", count: 64), String(repeating: "e", count: 64), String(repeating: "f", count: 64))
        for (apnsToken, fcmToken) in [(ones, "ana-1:APA91bX"), (es, "ana-2:APA91bX")] {
            #expect(try await Self.post(first, "devices/\(ServeFixture.token)/uninstall").status == 200)
            #expect(try await Self.post(first, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "\#(apnsToken)", "fcmToken": "\#(fcmToken)"}"#).status == 200)
        }
        // Two of each kind replaced: both kept.
        #expect(try await apns(first).status == 410)
        #expect(try await apns(first, token: ones).status == 410)
        await first.stop(keepingData: true)

        let second = try await ServeFixture.start(data: first.data, retiredTokenLimit: 2)
        defer { Task { await second.stop() } }
        #expect(second.server.startedFromCheckpoint)
        #expect(try await Self.post(second, "devices/\(ServeFixture.token)/uninstall").status == 200)
        #expect(try await Self.post(second, "devices/\(ServeFixture.token)/reinstall", #"{"apnsToken": "\#(fs)", "fcmToken": "ana-3:APA91bX"}"#).status == 200)
        // The first tokens replaced are forgotten: unknown to APNs, FCM and the control API.
        #expect(try await apns(second).json?["reason"] as? String == "BadDeviceToken")
        #expect(try await Self.fcmSend(second, ServeFixture.fcmToken)["exception"] as? String == "InvalidArgumentError")
        #expect(try await curl([second.base + "/emulator/v1/devices/\(ServeFixture.fcmToken)/notifications"]).status == 404)
        // The two replaced after them still answer as the uninstalled app's.
        for token in [ones, es] {
            #expect(try await apns(second, token: token).status == 410)
        }
        #expect(try await Self.fcmSend(second, "ana-1:APA91bX")["exception"] as? String == "UnregisteredError")
        #expect(try await apns(second, token: fs).status == 200)

        // A rotation's replaced FCM token counts with them: "ana-1" is forgotten now.
        #expect(try await Self.post(second, "devices/\(ServeFixture.androidToken)/rotate-fcm-token").status == 200)
        #expect(try await Self.fcmSend(second, "ana-1:APA91bX")["exception"] as? String == "InvalidArgumentError")
        #expect(try await Self.fcmSend(second, ServeFixture.androidToken)["exception"] as? String == "UnregisteredError")
    }
}
