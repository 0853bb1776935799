/// FCM's three kinds of message, as each platform sees them (Firebase: "Firebase Cloud Messaging message types").
public enum MessageKind: String, Sendable, Codable, CaseIterable {
    /// Something the system shows (iOS: an alert, badge or sound; Android: a `notification`), no app data.
    case notificationOnly = "notification-only"
    /// App data only: nothing for the system to show.
    case dataOnly = "data-only"
    /// Both.
    case mixed

    init(notification: Bool, data: Bool) {
        switch (notification, data) {
        case (true, false): self = .notificationOnly
        case (true, true): self = .mixed
        default: self = .dataOnly
        }
    }

    /// The kind of the push iOS receives. Firebase's own keys (`gcm.*`, `google.*`, `fcm_options`) are not app data.
    public static func ofIOSPush(_ push: ReceivedPush) -> MessageKind {
        MessageKind(notification: push.aps.isNotification, data: hasAppData(push.userInfo))
    }

    /// The payload carries keys for the app beside `aps`.
    static func hasAppData(_ userInfo: [String: JSONValue]) -> Bool {
        userInfo.keys.contains { key in
            key != "aps" && key != "fcm_options" && !key.hasPrefix("gcm.") && !key.hasPrefix("google.")
        }
    }

    /// The kind of what an Android device receives.
    public static func ofAndroidMessage(_ message: AndroidMessage) -> MessageKind {
        MessageKind(notification: message.notification != nil, data: !message.data.isEmpty)
    }
}

/// Whether the app is on screen when the message arrives.
public enum AppState: String, Sendable, Codable, CaseIterable {
    case foreground, background
}
