/// Which code receives a message on one platform.
public struct PlatformRoute: Sendable, Codable, Hashable {
    /// The receiving end, a stable identifier.
    public enum Receiver: String, Sendable, Codable, CaseIterable {
        /// iOS, app on screen: APNs, the service extension when eligible, then the
        /// UNUserNotificationCenter delegate's `willPresent`, which decides whether it is shown.
        case notificationCenterDelegate = "notification-center-delegate"
        /// iOS, app not on screen: APNs, the service extension when eligible, and the system shows it.
        case systemNotification = "system-notification"
        /// iOS: FCM's direct channel to the running app, `MessagingDelegate.messaging(_:didReceive:)`.
        case didReceiveMessage = "did-receive-message"
        /// iOS: a background push (`content-available: 1`) wakes the app.
        case didReceiveRemoteNotification = "did-receive-remote-notification"
        /// Android, app not on screen: the FCM SDK posts the notification itself.
        case systemTray = "system-tray"
        /// Android: `FirebaseMessagingService.onMessageReceived(RemoteMessage)`.
        case onMessageReceived = "on-message-received"
        case notDelivered = "not-delivered"
        /// iOS: the receivers of the other push types (`apns-push-type`), whatever the app's state.
        case activityKit = "activitykit"
        case widgetKit = "widgetkit"
        case controls
        case pushKitVoIP = "pushkit-voip"
        case locationPushExtension = "location-push-extension"
        case pushToTalk = "push-to-talk"
        case fileProvider = "file-provider"
        case complication
        case deviceManagement = "mdm"

        /// The receiver for a destination outside Notification Center and the app's delegate (its row in
        /// `Destination.row`).
        init?(_ destination: Destination) {
            guard let receiver = destination.row.receiver else { return nil }
            self = receiver
        }
    }

    /// Who puts something on screen.
    public enum Display: String, Sendable, Codable {
        /// The system shows the notification by itself.
        case system
        /// The app's code decides (willPresent's options, or a notification the app posts).
        case app
        /// Nothing is shown.
        case none
    }

    public var messageKind: MessageKind
    public var receiver: Receiver
    /// The code that receives the message, in order.
    public var handlers: [String]
    public var display: Display
    /// iOS only: does the Notification Service Extension run on the way.
    public var serviceExtension: Bool?
    public var explanation: String
}

/// The reception tables (Firebase: "Receive messages in an Android app", "Firebase Cloud Messaging message types";
/// Apple: "Pushing background updates to your App"): for each platform, kind of message and app state, the code
/// that receives it.
public enum DeliveryRoutes {
    static let willPresent = "UNUserNotificationCenterDelegate.userNotificationCenter(_:willPresent:withCompletionHandler:)"
    static let didReceiveResponse = "UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:withCompletionHandler:) when tapped"
    static let extensionHandler = "Notification Service Extension didReceive(_:withContentHandler:)"
    static let remoteNotification = "UIApplicationDelegate.application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"
    static let onMessageReceived = "FirebaseMessagingService.onMessageReceived(RemoteMessage)"

    /// - Parameters:
    ///   - contentAvailable: `aps.content-available` is 1: a data-only message is a background push.
    ///   - serviceExtension: iOS runs the service extension (mutable-content and an alert).
    ///   - viaFCM: sent through FCM, whose SDK has its own channel to a running app.
    public static func ios(
        kind: MessageKind, appState: AppState, contentAvailable: Bool = false, serviceExtension: Bool = false, viaFCM: Bool = true
    ) -> PlatformRoute {
        let apns = ["APNs"] + (serviceExtension ? [extensionHandler] : [])
        let dataNote = kind == .mixed ? " The data keys arrive in `userInfo` beside `aps`." : ""
        switch (kind, appState) {
        case (.notificationOnly, .foreground), (.mixed, .foreground):
            return PlatformRoute(
                messageKind: kind, receiver: .notificationCenterDelegate, handlers: apns + [willPresent], display: .app,
                serviceExtension: serviceExtension,
                explanation: "The app is on screen, so iOS hands the notification to the UNUserNotificationCenter delegate's willPresent, which decides whether it is shown (return .banner/.list); without a delegate it is not shown.\(dataNote)")
        case (.notificationOnly, .background), (.mixed, .background):
            return PlatformRoute(
                messageKind: kind, receiver: .systemNotification, handlers: apns + ["the system shows the notification", didReceiveResponse],
                display: .system, serviceExtension: serviceExtension,
                explanation: "APNs delivers it and the system shows it; the app runs only when the user taps it (the delegate's didReceive).\(dataNote)")
        case (.dataOnly, _) where contentAvailable:
            let when = appState == .foreground
                ? "The app is running, so it receives the background push at once."
                : "iOS wakes the app in the background: throttled (a few an hour), never after the user force-quits the app, and only with the Remote notifications background mode."
            return PlatformRoute(
                messageKind: kind, receiver: .didReceiveRemoteNotification, handlers: ["APNs", remoteNotification], display: .none,
                serviceExtension: false, explanation: "`content-available: 1` makes it a background push. \(when)")
        case (.dataOnly, .foreground) where viaFCM:
            return PlatformRoute(
                messageKind: kind, receiver: .didReceiveMessage, handlers: ["FCM direct channel", "MessagingDelegate.messaging(_:didReceive:)"],
                display: .none, serviceExtension: false,
                explanation: "A data-only message reaches the running app over FCM's own channel, not APNs; nothing is shown.")
        case (.dataOnly, .background) where viaFCM:
            return PlatformRoute(
                messageKind: kind, receiver: .notDelivered, handlers: [], display: .none, serviceExtension: false,
                explanation: "A data-only message cannot be received while the app is in the background. Add `apns.payload.aps.content-available: 1` (with apns-priority 5) to wake the app, or send a notification.")
        case (.dataOnly, _):
            return PlatformRoute(
                messageKind: kind, receiver: .notDelivered, handlers: [], display: .none, serviceExtension: false,
                explanation: "The payload has no alert, badge, sound or `content-available: 1`: iOS neither shows it nor wakes the app. Add `content-available: 1` for a background update, or an alert.")
        }
    }

    /// - Parameter clickAction: the notification's `click_action`: the intent action of the activity a tap opens.
    public static func android(kind: MessageKind, appState: AppState, clickAction: String? = nil) -> PlatformRoute {
        switch (kind, appState) {
        case (_, .foreground):
            let holds = switch kind {
            case .notificationOnly: "getNotification() holds the notification"
            case .dataOnly: "getData() holds the data"
            case .mixed: "getNotification() and getData() hold both parts"
            }
            return PlatformRoute(
                messageKind: kind, receiver: .onMessageReceived, handlers: [onMessageReceived], display: kind == .dataOnly ? .none : .app,
                explanation: "The app is on screen, so every kind of message goes to onMessageReceived; \(holds), and nothing is shown unless the app posts a notification itself.")
        case (.dataOnly, .background):
            return PlatformRoute(
                messageKind: kind, receiver: .onMessageReceived, handlers: [onMessageReceived], display: .none,
                explanation: "A data-only message always goes to onMessageReceived, even in the background; getData() holds the data.")
        case (.notificationOnly, .background), (.mixed, .background):
            // A tap starts the activity whose intent filter has the `click_action` action, else the launcher activity.
            let opened = clickAction.map { "the activity whose intent filter has the action `\($0)` (`click_action`)" } ?? "the launcher activity (no `click_action`)"
            let data = kind == .mixed ? " The data is not passed to onMessageReceived: it arrives as extras of the intent that starts \(opened) when the user taps the notification." : ""
            return PlatformRoute(
                messageKind: kind, receiver: .systemTray, handlers: ["the FCM SDK posts it to the system tray", "\(opened) when tapped"],
                display: .system, explanation: "The app is in the background, so the FCM SDK shows the notification in the system tray without calling onMessageReceived.\(data)")
        }
    }

    static func notDelivered(_ kind: MessageKind, because reason: String, ios: Bool) -> PlatformRoute {
        PlatformRoute(messageKind: kind, receiver: .notDelivered, handlers: [], display: .none, serviceExtension: ios ? false : nil, explanation: reason)
    }
}
