/// Where an iPhone hands a push it receives: decided once, from the push type and the payload, and used by
/// the extension decision (only Notification Center pushes reach a service extension), the process outcome and
/// the route.
public enum Destination: String, Sendable, Codable, CaseIterable {
    /// An alert, badge or sound: the system presents it (after the service extension, when eligible).
    case notificationCenter = "notification-center"
    /// `content-available` only: the app is woken in the background.
    case backgroundApp = "background-app"
    /// Nothing for iOS: no `aps` (an FCM data-only, Android-only or web-only message) or an `aps` with nothing in it.
    case nowhere = "none"
    /// `liveactivity`: ActivityKit starts, updates or ends the Live Activity.
    case activityKit = "activitykit"
    /// `widgets`: WidgetKit reloads the app's widget timelines.
    case widgetKit = "widgetkit"
    /// `controls`: WidgetKit reloads the app's Control Center controls.
    case controls
    /// `voip`: PushKit wakes the app to report the incoming call to CallKit.
    case pushKitVoIP = "pushkit-voip"
    /// `location`: the app's Location Push Service Extension.
    case locationPushExtension = "location-push-extension"
    /// `pushtotalk`: the Push to Talk framework's channel manager.
    case pushToTalk = "push-to-talk"
    /// `fileprovider`: the app's File Provider extension.
    case fileProvider = "file-provider"
    /// `complication`: a watchOS complication's timeline (PushKit).
    case complication
    /// `mdm`: the device contacts its MDM server.
    case deviceManagement = "mdm"

    /// The code on the device that receives it, for the route's handlers.
    var handlers: [String] {
        switch self {
        case .notificationCenter, .backgroundApp, .nowhere: []  // the reception table of `DeliveryRoutes` says
        case .activityKit: ["APNs", "ActivityKit: the Live Activity's content-state is applied and its views redrawn (no app code runs)"]
        case .widgetKit: ["APNs", "WidgetKit reloads the widgets' timelines: TimelineProvider.getTimeline(in:completion:)"]
        case .controls: ["APNs", "WidgetKit reloads the Control Center controls: ControlValueProvider.currentValue()"]
        case .pushKitVoIP: ["APNs", "PKPushRegistryDelegate.pushRegistry(_:didReceiveIncomingPushWith:for:completion:)", "CallKit: CXProvider.reportNewIncomingCall (required, or iOS stops delivering VoIP pushes)"]
        case .locationPushExtension: ["APNs", "CLLocationPushServiceExtension.didReceiveLocationPushPayload(_:completion:)"]
        case .pushToTalk: ["APNs", "PTChannelManagerDelegate.incomingPushResult(channelManager:channelUUID:pushPayload:)"]
        case .fileProvider: ["APNs", "the File Provider extension's enumerators are signalled"]
        case .complication: ["APNs", "PKPushRegistryDelegate (complication) updates the complication's timeline"]
        case .deviceManagement: ["APNs", "the device contacts its MDM server"]
        }
    }

    /// What the route's explanation says about it.
    var explanation: String {
        switch self {
        case .notificationCenter: "The system presents it."
        case .backgroundApp: "`content-available: 1` makes it a background push."
        case .nowhere: "The message carries nothing for iOS (no `aps`): nothing is shown and no app code runs."
        case .activityKit: "A Live Activity push goes to ActivityKit, which updates (or starts, or ends) the Live Activity on the Lock Screen and in the Dynamic Island; it never reaches a Notification Service Extension or the app's delegate."
        case .widgetKit: "A widgets push asks WidgetKit to reload the app's widget timelines; nothing is shown by itself."
        case .controls: "A controls push asks WidgetKit to reload the app's Control Center controls; nothing is shown by itself."
        case .pushKitVoIP: "A VoIP push goes to PushKit, which launches or wakes the app; the app must report a call to CallKit at once."
        case .locationPushExtension: "A location push goes to the app's Location Push Service Extension, which may read and report the location."
        case .pushToTalk: "A Push to Talk push goes to the PushToTalk framework's channel manager."
        case .fileProvider: "A File Provider push signals the app's File Provider extension that content changed."
        case .complication: "A complication push updates a watchOS complication."
        case .deviceManagement: "An MDM push tells the device to contact its MDM server."
        }
    }

    /// The destinations that present something in Notification Center.
    public var presentsNotification: Bool { self == .notificationCenter }

    /// A receiver of its own (ActivityKit, WidgetKit, PushKit...), chosen by the push type: neither Notification
    /// Center, nor the app's delegate, nor nothing.
    public var isAnotherReceiver: Bool {
        self != .notificationCenter && self != .backgroundApp && self != .nowhere
    }
}
