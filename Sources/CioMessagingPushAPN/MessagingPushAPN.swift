@_exported import UserNotifications
import CioInternalCommon
import CioMessagingPush

// As in customerio-ios (`Sources/MessagingPushAPN/Aliases.swift`): apps import only CioMessagingPushAPN.
public typealias MessagingPush = CioMessagingPush.MessagingPush
public typealias MessagingPushConfigBuilder = CioMessagingPush.MessagingPushConfigBuilder
public typealias MessagingPushConfigOptions = CioMessagingPush.MessagingPushConfigOptions

/// Customer.io's APNs push module, as a Notification Service Extension uses it.
public final class MessagingPushAPN: Sendable {
    public static let shared = MessagingPushAPN()

    /// Initializes the push module for the extension (`MessagingPush.initializeForExtension`).
    @discardableResult
    public static func initializeForExtension(withConfig config: MessagingPushConfigOptions) -> MessagingPushInstance {
        MessagingPush.initializeForExtension(withConfig: config)
    }

    @discardableResult
    public func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) -> Bool {
        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }

    public func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
