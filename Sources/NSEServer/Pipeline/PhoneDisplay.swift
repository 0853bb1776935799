import Foundation
import NSEPipeline
import NSEReports
import NSEMedia
import NSEPush

/// What the phone's screen shows for a push, given the pipeline's result and the user's notification settings
/// (device-behaviour.md section 9): the result says what content iOS has; the settings say where it appears.
package enum PhoneDisplay {
    /// What the screen shows, decided once; `object` and `json` write it.
    package enum View: Equatable {
        /// An Android phone: shown or not, and the Android side of the result (`nse process`'s JSON).
        case android(shown: Bool, android: Data?)
        /// Nothing on the screen, and why.
        case nothing(why: String)
        case notification(Shown)
    }

    package struct Shown: Equatable {
        var places: [String]
        var title: String
        var subtitle: String
        var body: String
        var attachments: [Attachment]
        var badge: Int?
        var sound: String?
        var previews: String
        var imageShown: Bool
        var appState: String
        /// The places whose preview is hidden, and the title shown there instead of the content's.
        var previewHiddenIn: [String]
        var hiddenPreviewTitle: String
        var why: String?
    }

    package static func view(_ result: ProcessResult, device: DeviceEntry) -> View {
        if device.platform == .android {
            let shown = result.android?.notification != nil && result.outcome != .rejected
            return .android(shown: shown, android: result.android.map { JSONResultRenderer().encode($0) })
        }
        let hasContent = result.content != nil && [.modified, .modifiedWithoutAttachment, .original, .bestAttempt].contains(result.outcome)
        guard hasContent, let content = result.content else {
            return .nothing(why: "iOS shows no notification for this push (outcome \(result.outcome.rawValue)).")
        }
        let settings = device.settings
        let foreground = device.appState == .foreground
        let options = Set(device.foregroundPresentation)
        var places: [String] = []
        var why: String?
        switch settings.authorization {
        case .denied, .notDetermined:
            // APNs accepted the push (200); the user never allowed notifications, so nothing appears.
            why = "The user has not allowed notifications (authorization \(settings.authorization.rawValue)): APNs accepted the push, the phone shows nothing."
        case .provisional:
            // Delivered quietly: Notification Center only, no banner, sound or Lock Screen alert.
            if settings.notificationCenter { places = ["notificationCenter"] }
        case .authorized, .ephemeral:
            if settings.alert { places.append("banner") }
            if settings.lockScreen { places.append("lockScreen") }
            if settings.notificationCenter { places.append("notificationCenter") }
        }
        // In the foreground the app's willPresent decides (Apple: userNotificationCenter(_:willPresent:
        // withCompletionHandler:)): a banner with `.banner`, Notification Center with `.list`, and no Lock Screen
        // (the phone is unlocked, the app open); the user's settings still remove what they turn off.
        if foreground {
            places = places.filter { ($0 == "banner" && options.contains(.banner)) || ($0 == "notificationCenter" && options.contains(.list)) }
        }
        if why == nil, places.isEmpty {
            why = foreground
                ? "The app is in the foreground and its willPresent lets nothing of this show (foregroundPresentation \(device.foregroundPresentation.map(\.rawValue)), settings allowing \(settings.authorization == .provisional ? "Notification Center only" : "their places")): the app receives the notification, the screen shows nothing."
                : "The user turned off every place the app's notifications appear (alert, Lock Screen, Notification Center)."
        }
        // The badge and sound need authorization and are off for provisional; they do not need an alert place.
        let quiet = [.provisional, .denied, .notDetermined].contains(settings.authorization)
        // Show Previews (Settings > Notifications): "never" hides the content everywhere, "when unlocked" on the
        // Lock Screen (a phone showing its Lock Screen is locked); those places show the app and "Notification".
        let hidden = places.filter { settings.previews == .never || (settings.previews == .whenUnlocked && $0 == "lockScreen") }
        return .notification(Shown(
            places: places, title: content.title, subtitle: content.subtitle, body: content.body, attachments: content.attachments,
            badge: content.badge.flatMap { settings.badge && !quiet && (!foreground || options.contains(.badge)) ? $0 : nil },
            sound: content.sound.flatMap { settings.sound && !quiet && (!foreground || options.contains(.sound)) ? $0 : nil },
            previews: settings.previews.rawValue, imageShown: result.imageShown, appState: device.appState.rawValue,
            previewHiddenIn: hidden, hiddenPreviewTitle: device.bundleId ?? device.name, why: why))
    }

    /// The view as JSONSerialization's objects: what `json` writes, and what tests compare it with.
    package static func object(_ view: View) -> [String: Any] {
        switch view {
        case .android(let shown, let android):
            return ["shown": shown, "android": android.flatMap(Self.parsed) ?? NSNull()]
        case .nothing(let why):
            return ["shown": false, "why": why]
        case .notification(let shown):
            var content: [String: Any] = [
                "title": shown.title, "subtitle": shown.subtitle, "body": shown.body,
                "attachments": Self.parsed(JSONResultRenderer().encode(shown.attachments)) ?? [],
            ]
            if let badge = shown.badge { content["badge"] = badge }
            if let sound = shown.sound { content["sound"] = sound }
            var answer: [String: Any] = [
                "shown": shown.why == nil, "places": shown.places, "content": content, "previews": shown.previews,
                "imageShown": shown.imageShown, "appState": shown.appState,
            ]
            if !shown.previewHiddenIn.isEmpty {
                answer["previewHiddenIn"] = shown.previewHiddenIn
                answer["hiddenPreview"] = ["title": shown.hiddenPreviewTitle, "body": "Notification"]
            }
            if let why = shown.why { answer["why"] = why }
            return answer
        }
    }

    /// The view as compact JSON, keys sorted: byte for byte what JSONSerialization writes of `object(view)` with
    /// `.sortedKeys` and `.withoutEscapingSlashes` (PhoneDisplayTests), written directly for a text-only
    /// notification. Serializing the dictionary cost more than the rest of recording a delivery.
    package static func json(_ view: View) -> Data {
        guard case .notification(let shown) = view, shown.attachments.isEmpty else { return Self.serialized(Self.object(view)) }
        var json = JSONWriter()
        json.raw(#"{"appState":"#)
        json.string(shown.appState)
        json.raw(#","content":{"attachments":[]"#)
        if let badge = shown.badge { json.raw(#","badge":\#(badge)"#) }
        json.raw(#","body":"#)
        json.string(shown.body)
        if let sound = shown.sound {
            json.raw(#","sound":"#)
            json.string(sound)
        }
        json.raw(#","subtitle":"#)
        json.string(shown.subtitle)
        json.raw(#","title":"#)
        json.string(shown.title)
        json.raw("}")
        if !shown.previewHiddenIn.isEmpty {
            json.raw(#","hiddenPreview":{"body":"Notification","title":"#)
            json.string(shown.hiddenPreviewTitle)
            json.raw("}")
        }
        json.raw(shown.imageShown ? #","imageShown":true,"places":"# : #","imageShown":false,"places":"#)
        json.strings(shown.places)
        if !shown.previewHiddenIn.isEmpty {
            json.raw(#","previewHiddenIn":"#)
            json.strings(shown.previewHiddenIn)
        }
        json.raw(#","previews":"#)
        json.string(shown.previews)
        json.raw(shown.why == nil ? #","shown":true"# : #","shown":false"#)
        if let why = shown.why {
            json.raw(#","why":"#)
            json.string(why)
        }
        json.raw("}")
        return Data(json.bytes)
    }

    package static func serialized(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    private static func parsed(_ data: Data) -> Any? {
        try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}

/// Compact JSON written byte by byte, its strings by `JSONStringLiteral` (escaped as JSONSerialization escapes them).
struct JSONWriter {
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func string(_ text: String) {
        JSONStringLiteral.append(text, to: &bytes)
    }

    mutating func strings(_ texts: [String]) {
        bytes.append(0x5B)
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            string(text)
        }
        bytes.append(0x5D)
    }
}
