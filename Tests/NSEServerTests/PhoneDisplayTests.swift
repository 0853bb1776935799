import Foundation
import NSEPipeline
import NSEPush
import NSEServer
import Testing

/// What a phone shows is stored with every delivery and served by the control API. It is written by hand (a
/// dictionary through JSONSerialization cost more than the rest of recording a delivery): these cases hold the
/// hand-written bytes to JSONSerialization's for the same view, keys sorted, over every setting that changes the
/// view and strings that need escaping.
@Suite
struct PhoneDisplayTests {
    static let settings: [String] = [
        #""settings": {}"#,
        #""settings": {"authorization": "denied"}"#,
        #""settings": {"authorization": "notDetermined"}"#,
        #""settings": {"authorization": "provisional"}"#,
        #""settings": {"authorization": "ephemeral", "sound": false}"#,
        #""settings": {"sound": false, "badge": false}"#,
        #""settings": {"alert": false, "lockScreen": false, "notificationCenter": false}"#,
        #""settings": {"previews": "never"}"#,
        #""settings": {"previews": "whenUnlocked"}"#,
        #""appState": "foreground""#,
        #""appState": "foreground", "foregroundPresentation": ["banner", "sound"]"#,
        #""appState": "foreground", "foregroundPresentation": ["list", "badge", "banner"], "settings": {"authorization": "provisional"}"#,
        #""appState": "notRunning", "settings": {"previews": "whenUnlocked"}"#,
    ]

    /// Every control character, the two JSON escapes, a slash, DEL, non-ASCII and the line separators.
    static let texts: [String] = [
        "", "Order shipped", "Arrives \"Tuesday\" \\ 5/6",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
        "Café 🚚 \u{2028}\u{2029} 東京",
    ]

    static func device(_ entry: String, bundleID: Bool = true) throws -> DeviceEntry {
        let bundle = bundleID ? #", "bundleId": "com.example.shop""# : ""
        let json = #"{"name": "iPhone \"A\"", "apns": {"token": "7a1c9e0f"}\#(bundle), \#(entry)}"#
        return try JSONDecoder().decode(DeviceEntry.self, from: Data(json.utf8))
    }

    static func result(text: String, badge: Int?, sound: String?, outcome: Outcome = .original) -> ProcessResult {
        var content = NotificationContent()
        content.title = text
        content.subtitle = "Sub " + text
        content.body = text + " body"
        content.badge = badge
        content.sound = sound
        return ProcessResult(
            input: "apns:1", inputKind: nil, extensionInvoked: false, outcome: outcome, imageShown: false, content: content,
            diagnostics: [], timings: [:])
    }

    @Test(arguments: settings)
    func handWrittenMatchesJSONSerialization(_ entry: String) throws {
        for bundleID in [true, false] {
            let device = try Self.device(entry, bundleID: bundleID)
            for text in Self.texts {
                for (badge, sound) in [(Int?.none, String?.none), (3, "default"), (0, text)] {
                    let view = PhoneDisplay.view(Self.result(text: text, badge: badge, sound: sound), device: device)
                    let written = PhoneDisplay.json(view)
                    let serialized = PhoneDisplay.serialized(PhoneDisplay.object(view))
                    #expect(String(decoding: written, as: UTF8.self) == String(decoding: serialized, as: UTF8.self))
                }
            }
        }
    }

    @Test
    func nothingShownMatchesJSONSerialization() throws {
        let view = PhoneDisplay.view(Self.result(text: "x", badge: 1, sound: nil, outcome: .rejected), device: try Self.device(#""settings": {}"#))
        #expect(PhoneDisplay.json(view) == PhoneDisplay.serialized(PhoneDisplay.object(view)))
    }
}
