import Foundation
import NSEPipeline
import NSEReports
import NSEMedia
import NSEPush

/// What the phone's screen shows for a push, given the pipeline's result and the user's notification settings
/// (device-behaviour.md section 9): the result says what content iOS has; the settings say where it appears.
enum PhoneDisplay {
    static func describe(_ result: ProcessResult, device: DeviceEntry) -> [String: Any] {
        if device.platform == .android {
            let android = result.android.flatMap { Self.object(JSONResultRenderer().encode($0)) }
            let shown = result.android?.notification != nil && result.outcome != .rejected
            return ["shown": shown, "android": android ?? NSNull()]
        }
        let hasContent = result.content != nil && [.modified, .modifiedWithoutAttachment, .original, .bestAttempt].contains(result.outcome)
        guard hasContent, let content = result.content else {
            return ["shown": false, "why": "iOS shows no notification for this push (outcome \(result.outcome.rawValue))."]
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
        var shown: [String: Any] = [
            "title": content.title, "subtitle": content.subtitle, "body": content.body,
            "attachments": Self.object(JSONResultRenderer().encode(content.attachments)) ?? [],
        ]
        // The badge and sound need authorization and are off for provisional; they do not need an alert place.
        let quiet = [.provisional, .denied, .notDetermined].contains(settings.authorization)
        if let badge = content.badge, settings.badge, !quiet, !foreground || options.contains(.badge) { shown["badge"] = badge }
        if let sound = content.sound, settings.sound, !quiet, !foreground || options.contains(.sound) { shown["sound"] = sound }
        var answer: [String: Any] = [
            "shown": why == nil, "places": places, "content": shown, "previews": settings.previews.rawValue,
            "imageShown": result.imageShown, "appState": device.appState.rawValue,
        ]
        // Show Previews (Settings > Notifications): "never" hides the content everywhere, "when unlocked" on the
        // Lock Screen (a phone showing its Lock Screen is locked); those places show the app and "Notification".
        let hidden = places.filter { settings.previews == .never || (settings.previews == .whenUnlocked && $0 == "lockScreen") }
        if !hidden.isEmpty {
            answer["previewHiddenIn"] = hidden
            answer["hiddenPreview"] = ["title": device.bundleId ?? device.name, "body": "Notification"]
        }
        if let why { answer["why"] = why }
        return answer
    }

    private static func object(_ data: Data) -> Any? {
        try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}
