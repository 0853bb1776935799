@_exported import UserNotifications
import CioInternalCommon
import CioMessagingPush

// As in customerio-ios (`Sources/MessagingPushFCM/Aliases.swift`): apps whose pushes come through Firebase Cloud
// Messaging import only CioMessagingPushFCM, and their extension is the APNs one with this module's name.
public typealias MessagingPush = CioMessagingPush.MessagingPush
public typealias MessagingPushConfigBuilder = CioMessagingPush.MessagingPushConfigBuilder
public typealias MessagingPushConfigOptions = CioMessagingPush.MessagingPushConfigOptions

/// Customer.io's FCM push module, as a Notification Service Extension uses it (`Sources/MessagingPushFCM/MessagingPushFCM.swift`):
/// the extension's calls are `MessagingPush`'s, the same as with `MessagingPushAPN`.
public final class MessagingPushFCM: Sendable {
    /// Initializes the push module for the extension (`MessagingPush.initializeForExtension`).
    @discardableResult
    public static func initializeForExtension(withConfig config: MessagingPushConfigOptions) -> MessagingPushInstance {
        MessagingPush.initializeForExtension(withConfig: config)
    }
}
