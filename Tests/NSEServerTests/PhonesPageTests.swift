import Foundation
import NSEMedia
import NSEMediaServer
import NSEServer
import Testing

/// Debian's chromium, which the phones page's tests drive.
let phonesPageBrowserInstalled = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains { FileManager.default.isExecutableFile(atPath: $0) }

/// The phones page (`GET /`) in headless Chromium, driven through its DevTools protocol with the keyboard
/// (Tests/NSEServerTests/Clients/phones_page_browser.py): a push from a real client appears live, a setting changed on
/// the page changes what the next push shows, the send form sends through the FCM endpoint.
///
/// `make test` installs chromium (`make deps-browser`) and websocket-client (`make deps-python`). Without chromium
/// these tests are skipped with a message, except in CI (`CI` set), where they run and fail.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: phonesPageBrowserInstalled || ProcessInfo.processInfo.environment["CI"] != nil,
             "chromium is not installed: `make deps-browser` to run the phones page's browser tests"))
struct PhonesPageTests {
    private static func notes(_ places: Any?, _ place: String) -> [[String: Any]] {
        (places as? [String: Any])?[place] as? [[String: Any]] ?? []
    }

    @Test func aPushSentByARealClientAppearsOnTheOpenPageWithWhyItLooksSo() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let seen = try await python("phones_page_browser.py", ["live", String(fixture.port), ServeFixture.token, ServeFixture.topic])
        #expect(Self.notes(seen["before"], "lockScreen").isEmpty)
        let lockScreen = Self.notes(seen["after"], "lockScreen")
        #expect(lockScreen.count == 1)
        #expect((lockScreen.first?["text"] as? String ?? "").contains("Live from httpx"))
        #expect((Self.notes(seen["after"], "notificationCenter").first?["text"] as? String ?? "").contains("Sent while the page was open"))
        // Arrived through the events stream: the document the test marked is the one showing it.
        #expect(seen["sameDocument"] as? String == "same page")
        #expect(seen["opened"] as? Int == 2, "the selected notification is open in both places that show it")
        let details = seen["details"] as? String ?? ""
        for expected in ["PASS", "Verdict and findings", "The extension's activity", "Sent by", "provider token (JWT), key KEY1234567, team TEAM123456",
                         "python-httpx", "HTTP/2 POST /3/device/\(ServeFixture.token)", "apns-topic", ServeFixture.topic, #""title": "Live from httpx""#] {
            #expect(details.contains(expected), "the details panel lacks \(expected): \(details.prefix(2000))")
        }
        #expect((seen["console"] as? [Any])?.isEmpty == true, "the page threw: \(seen["console"] ?? "")")
    }

    @Test func aSettingChangedOnThePageChangesWhatTheNextPushShows() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let seen = try await python("phones_page_browser.py", ["setting", String(fixture.port), ServeFixture.token, ServeFixture.topic])
        // Show Previews: never. The Lock Screen shows the app and "Notification", not the content.
        #expect(seen["previews"] as? String == "never")
        let hidden = try #require(Self.notes(seen["hidden"], "lockScreen").first)
        #expect(hidden["hidden"] as? Bool == true)
        #expect((hidden["text"] as? String ?? "").contains("Notification"))
        #expect(!(hidden["text"] as? String ?? "").contains("Secret sale"))
        // Authorization: provisional. Delivered quietly: the newer push is in Notification Center only.
        #expect(seen["authorization"] as? String == "provisional")
        let newest = try #require(Self.notes(seen["quiet"], "notificationCenter").compactMap { $0["seq"] as? Int }.max())
        #expect(Self.notes(seen["quiet"], "notificationCenter").count == 2)
        #expect(Self.notes(seen["quiet"], "lockScreen").compactMap { $0["seq"] as? Int } == [newest - 1], "the provisional push is not on the Lock Screen; the earlier one stays")
        #expect(seen["sameDocument"] as? String == "same page")
        // The page changed the device through the control API.
        let device = try await curl(["\(fixture.base)/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=1"]).json?["device"] as? [String: Any]
        let settings = device?["settings"] as? [String: Any]
        #expect(settings?["previews"] as? String == "never")
        #expect(settings?["authorization"] as? String == "provisional")
    }

    @Test func theSendFormSendsThroughTheFCMEndpointAndThePushAppearsWithItsImage() async throws {
        let media = try LocalMediaFolder(folder: packageRoot.appendingPathComponent("samples/media"))
        defer { media.stop() }
        let fixture = try await ServeFixture.start(pipeline: PhonePipeline.Defaults(hostMapping: MediaHostMapping(origin: try #require(URL(string: media.server.baseURL)))))
        defer { Task { await fixture.stop() } }
        let seen = try await python("phones_page_browser.py", ["form", String(fixture.port), "https://media.example.com/img/sale.jpg"])
        let sent = seen["sent"] as? String ?? ""
        #expect(sent.hasPrefix("Sent: projects/\(ServeFixture.project)/messages/"), "\(sent)")
        let shown = try #require(Self.notes(seen["places"], "lockScreen").first)
        #expect((shown["text"] as? String ?? "").contains("Designer's try"))
        #expect(shown["thumb"] as? Bool == true, "the image the form named shows as the notification's thumbnail")
        #expect((seen["target"] as? String ?? "").hasPrefix("Ana's iPhone"))
        let expanded = seen["expanded"] as? [String: Any]
        #expect(expanded?["display"] as? String == "block", "selected, the notification shows its expanded view")
        #expect(expanded?["image"] as? Bool == true, "the expanded view has the whole image")
        let notification = try #require(try await fixture.notifications().first)
        #expect(notification["service"] as? String == "fcm")
        let body = ((notification["request"] as? [String: Any])?["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
        let message = body?["message"] as? [String: Any]
        #expect((message?["data"] as? [String: String]) == ["campaign": "spring"])
        #expect(message?["token"] as? String == ServeFixture.fcmToken)
        #expect(seen["sameDocument"] as? String == "same page")
    }

    @Test func anAndroidPhoneShowsTheImageAsTheShadeDoes() async throws {
        let media = try LocalMediaFolder(folder: packageRoot.appendingPathComponent("samples/media"))
        defer { media.stop() }
        let fixture = try await ServeFixture.start(pipeline: PhonePipeline.Defaults(hostMapping: MediaHostMapping(origin: try #require(URL(string: media.server.baseURL)))))
        defer { Task { await fixture.stop() } }
        let seen = try await python("phones_page_browser.py", ["android", String(fixture.port), "https://media.example.com/img/sale.jpg"])
        #expect((seen["target"] as? String ?? "").hasPrefix("Ben's Pixel"), "\(seen)")
        #expect((seen["sent"] as? String ?? "").hasPrefix("Sent: "), "\(seen)")
        let collapsed = try #require(seen["collapsed"] as? [String: Any])
        #expect((collapsed["text"] as? String ?? "").contains("Pixel preview"))
        #expect(collapsed["icon"] as? Bool == true, "collapsed, the image is the large icon on the right")
        // sale.jpg is 2:1: drawn at 16:9 of the icon's height, centre-cropped.
        let (width, height) = (collapsed["iconWidth"] as? Double ?? 0, collapsed["iconHeight"] as? Double ?? 0)
        #expect(height > 0 && abs(width / height - 16.0 / 9.0) < 0.05, "\(collapsed)")
        #expect(collapsed["pictureHidden"] as? Bool == true, "the big picture waits for the expanded view")
        let expanded = try #require(seen["expanded"] as? [String: Any])
        #expect(expanded["display"] as? String == "block")
        #expect(expanded["picture"] as? Bool == true, "expanded, BigPictureStyle shows the whole width")
        #expect(seen["sameDocument"] as? String == "same page")
        #expect((seen["console"] as? [Any])?.isEmpty == true, "the page threw: \(seen["console"] ?? "")")
    }

    @Test func theAppUninstalledAndReinstalledOnThePageGetsNewTokens() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let seen = try await python("phones_page_browser.py", ["reinstall", String(fixture.port)])
        #expect(seen["reinstallDisabledWhileInstalled"] as? Bool == true)
        #expect((seen["gone"] as? String ?? "").hasPrefix("App uninstalled"))
        let devices = try #require(try await curl([fixture.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]])
        let ana = try #require(devices.first { $0["key"] as? String == ServeFixture.token })
        let apnsToken = try #require((ana["apns"] as? [String: Any])?["token"] as? String)
        let fcmToken = try #require((ana["fcm"] as? [String: Any])?["token"] as? String)
        #expect(apnsToken != ServeFixture.token)
        // The phone names its new tokens, and the send form sends to the new FCM token.
        #expect((seen["after"] as? String ?? "").contains("APNs \(apnsToken.prefix(8))…"), "\(seen)")
        #expect((seen["target"] as? String ?? "").contains(String(fcmToken.prefix(12))), "\(seen)")
        #expect((seen["saved"] as? String ?? "").hasPrefix("Reinstalled"))
        #expect(try await apns(fixture).status == 410)
        #expect(seen["sameDocument"] as? String == "same page")
    }
}
