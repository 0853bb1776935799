import Foundation
import NSEServer
import Testing

/// What the phone shows under the user's notification settings and the app's state (device-behaviour.md section
/// 9): the pipeline's result stays `nse process`'s, the phone shows what the settings leave of it.
@Suite(.timeLimit(.minutes(10)))
struct PhoneSettingsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The device entry's `settings`, `appState` and `foregroundPresentation` members.
        var entry: String
        var shown: Bool
        var places: [String]
        var sound: Bool
        var badge: Bool
        var hiddenIn: [String] = []

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "authorized", entry: #""settings": {}"#, shown: true, places: ["banner", "lockScreen", "notificationCenter"], sound: true, badge: true),
        Case(name: "denied", entry: #""settings": {"authorization": "denied"}"#, shown: false, places: [], sound: false, badge: false),
        Case(name: "provisional", entry: #""settings": {"authorization": "provisional"}"#, shown: true, places: ["notificationCenter"], sound: false, badge: false),
        Case(name: "sound and badge off", entry: #""settings": {"sound": false, "badge": false}"#, shown: true, places: ["banner", "lockScreen", "notificationCenter"], sound: false, badge: false),
        Case(name: "alert off", entry: #""settings": {"alert": false}"#, shown: true, places: ["lockScreen", "notificationCenter"], sound: true, badge: true),
        Case(name: "Lock Screen off", entry: #""settings": {"lockScreen": false}"#, shown: true, places: ["banner", "notificationCenter"], sound: true, badge: true),
        Case(name: "every place off, badge still set", entry: #""settings": {"alert": false, "lockScreen": false, "notificationCenter": false}"#, shown: false, places: [], sound: true, badge: true),
        Case(name: "previews never", entry: #""settings": {"previews": "never"}"#, shown: true, places: ["banner", "lockScreen", "notificationCenter"], sound: true, badge: true, hiddenIn: ["banner", "lockScreen", "notificationCenter"]),
        Case(name: "previews when unlocked", entry: #""settings": {"previews": "whenUnlocked"}"#, shown: true, places: ["banner", "lockScreen", "notificationCenter"], sound: true, badge: true, hiddenIn: ["lockScreen"]),
        Case(name: "foreground, willPresent not implemented", entry: #""appState": "foreground""#, shown: false, places: [], sound: false, badge: false),
        Case(name: "foreground, willPresent banner and sound", entry: #""appState": "foreground", "foregroundPresentation": ["banner", "sound"]"#, shown: true, places: ["banner"], sound: true, badge: false),
        Case(name: "foreground, list and badge, provisional", entry: #""appState": "foreground", "foregroundPresentation": ["list", "badge", "banner"], "settings": {"authorization": "provisional"}"#, shown: true, places: ["notificationCenter"], sound: false, badge: false),
    ]

    @Test(arguments: cases)
    func phoneShowsWhatTheSettingsLeave(_ setting: Case) async throws {
        let fixture = try await ServeFixture.start(devices: """
            {"devices": [{"name": "iPhone", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)", \(setting.entry)}]}
            """)
        defer { Task { await fixture.stop() } }
        let payload = #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"},"sound":"default","badge":3}}"#
        #expect(try await apns(fixture, payload: payload).status == 200)
        let notification = try #require(try await fixture.notifications().first)
        let phone = try #require(notification["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == setting.shown)
        #expect(phone["places"] as? [String] == setting.places)
        let content = phone["content"] as? [String: Any]
        #expect((content?["sound"] != nil) == setting.sound)
        #expect((content?["badge"] != nil) == setting.badge)
        #expect(phone["previewHiddenIn"] as? [String] ?? [] == setting.hiddenIn)
        if !setting.hiddenIn.isEmpty {
            #expect((phone["hiddenPreview"] as? [String: Any])?["body"] as? String == "Notification")
        }
        if !setting.shown { #expect(phone["why"] is String) }
        // The result stays nse process's whatever the settings: the content is the payload's.
        let result = try #require(notification["result"] as? [String: Any])
        #expect(result["outcome"] as? String == "original")
    }
}
