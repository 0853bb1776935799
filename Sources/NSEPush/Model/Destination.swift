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

    /// Its row of the table: the push type that sends a push here, the route's receiver and what the route says.
    /// The one place these are mapped to each other: `PushType.rules`, `PlatformRoute.Receiver(_:)` and the route
    /// report read it.
    package var row: Row {
        switch self {
        // The reception table of `DeliveryRoutes` says who receives these: it depends on the app's state.
        case .notificationCenter: Row(pushType: .alert, receiver: nil, handlers: [], display: .none, explanation: "The system presents it.")
        case .backgroundApp: Row(pushType: .background, receiver: nil, handlers: [], display: .none, explanation: "`content-available: 1` makes it a background push.")
        case .nowhere: Row(pushType: nil, receiver: nil, handlers: [], display: .none, explanation: "The message carries nothing for iOS (no `aps`): nothing is shown and no app code runs.")
        case .activityKit: Row(
            pushType: .liveactivity, receiver: .activityKit,
            handlers: ["APNs", "ActivityKit: the Live Activity's content-state is applied and its views redrawn (no app code runs)"],
            display: .system,
            explanation: "A Live Activity push goes to ActivityKit, which updates (or starts, or ends) the Live Activity on the Lock Screen and in the Dynamic Island; it never reaches a Notification Service Extension or the app's delegate.")
        case .widgetKit: Row(
            pushType: .widgets, receiver: .widgetKit,
            handlers: ["APNs", "WidgetKit reloads the widgets' timelines: TimelineProvider.getTimeline(in:completion:)"],
            display: .none, explanation: "A widgets push asks WidgetKit to reload the app's widget timelines; nothing is shown by itself.")
        case .controls: Row(
            pushType: .controls, receiver: .controls,
            handlers: ["APNs", "WidgetKit reloads the Control Center controls: ControlValueProvider.currentValue()"],
            display: .none, explanation: "A controls push asks WidgetKit to reload the app's Control Center controls; nothing is shown by itself.")
        case .pushKitVoIP: Row(
            pushType: .voip, receiver: .pushKitVoIP,
            handlers: ["APNs", "PKPushRegistryDelegate.pushRegistry(_:didReceiveIncomingPushWith:for:completion:)", "CallKit: CXProvider.reportNewIncomingCall (required, or iOS stops delivering VoIP pushes)"],
            display: .none, explanation: "A VoIP push goes to PushKit, which launches or wakes the app; the app must report a call to CallKit at once.")
        case .locationPushExtension: Row(
            pushType: .location, receiver: .locationPushExtension,
            handlers: ["APNs", "CLLocationPushServiceExtension.didReceiveLocationPushPayload(_:completion:)"],
            display: .none, explanation: "A location push goes to the app's Location Push Service Extension, which may read and report the location.")
        case .pushToTalk: Row(
            pushType: .pushtotalk, receiver: .pushToTalk,
            handlers: ["APNs", "PTChannelManagerDelegate.incomingPushResult(channelManager:channelUUID:pushPayload:)"],
            display: .none, explanation: "A Push to Talk push goes to the PushToTalk framework's channel manager.")
        case .fileProvider: Row(
            pushType: .fileprovider, receiver: .fileProvider,
            handlers: ["APNs", "the File Provider extension's enumerators are signalled"],
            display: .none, explanation: "A File Provider push signals the app's File Provider extension that content changed.")
        case .complication: Row(
            pushType: .complication, receiver: .complication,
            handlers: ["APNs", "PKPushRegistryDelegate (complication) updates the complication's timeline"],
            display: .none, explanation: "A complication push updates a watchOS complication.")
        case .deviceManagement: Row(
            pushType: .mdm, receiver: .deviceManagement, handlers: ["APNs", "the device contacts its MDM server"],
            display: .none, explanation: "An MDM push tells the device to contact its MDM server.")
        }
    }

    /// A destination's row: who receives a push there and what the route says.
    package struct Row: Sendable {
        /// The `apns-push-type` that sends a push here; nil for `nowhere`.
        package let pushType: PushType?
        /// The route's receiver, whatever the app's state; nil for Notification Center, the background app and
        /// nowhere, whose receiver depends on the app's state and the sender (`DeliveryRoutes`).
        package let receiver: PlatformRoute.Receiver?
        /// The code on the device that receives it, in order (empty where `DeliveryRoutes` says).
        package let handlers: [String]
        /// Who shows something, for a receiver of its own.
        package let display: PlatformRoute.Display
        /// What the route's explanation says about it.
        package let explanation: String
    }

    /// The destination a push type sends a push to: the row that names it.
    static let byPushType: [PushType: Destination] = Dictionary(
        allCases.compactMap { destination in destination.row.pushType.map { ($0, destination) } }, uniquingKeysWith: { first, _ in first })

    /// The destinations that present something in Notification Center.
    public var presentsNotification: Bool { self == .notificationCenter }

    /// A receiver of its own (ActivityKit, WidgetKit, PushKit...), chosen by the push type: neither Notification
    /// Center, nor the app's delegate, nor nothing.
    public var isAnotherReceiver: Bool {
        row.receiver != nil
    }
}
