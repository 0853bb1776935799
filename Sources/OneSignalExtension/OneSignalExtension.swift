@_exported import Foundation
// OneSignalExtension.h imports Foundation and UserNotifications, and a framework's clang module re-exports what its
// umbrella header imports: an extension that imports only OneSignalExtension still names UN* types.
@_exported import UserNotifications

/// OneSignal's Notification Service Extension entry points (module `OneSignalExtension`, OneSignal-iOS-SDK 5),
/// as an app's `NotificationService.swift` calls them. The rules are OneSignal's, read in its source
/// (docs/sdks.md): `OneSignalNotificationServiceExtensionHandler.m`, `OneSignalAttachmentHandler.m`,
/// `OneSignalExtensionBadgeHandler.m`, `OSNotification.m`.
open class OneSignalExtension: NSObject {
    /// Applies `badge_inc`, the action buttons' category, downloads every `att` item (in turn, on the calling
    /// thread, as the SDK does), replaces the attachments with those that worked, then calls `contentHandler`.
    /// Each failed item is skipped; the notification shows with the others.
    @discardableResult
    public class func didReceiveNotificationExtensionRequest(
        _ request: UNNotificationRequest, with replacementContent: UNMutableNotificationContent?,
        withContentHandler contentHandler: ((UNNotificationContent) -> Void)?
    ) -> UNMutableNotificationContent? {
        let content = replacementContent ?? (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
        let environment = content.environment ?? ExtensionEnvironment.current
        let notification = OneSignalNotification(content.payload)
        OneSignalBadge.apply(notification, to: content, environment: environment)
        OneSignalButtons.apply(notification, request: request, to: content, environment: environment)
        OneSignalReceipt.record(notification, waitsForAnswer: contentHandler != nil, environment: environment)
        guard OneSignalAttachments.add(notification, to: content, environment: environment) else {
            // iOS ended the extension during a download: the SDK never gets back here.
            return content
        }
        if let contentHandler {
            if let environment { environment.withCurrent { contentHandler(content) } } else { contentHandler(content) }
        }
        return content
    }

    /// The form without a handler (deprecated by OneSignal): the same work, the content returned.
    @available(*, deprecated, message: "Please use didReceiveNotificationExtensionRequest(_:with:withContentHandler:) instead.")
    @discardableResult
    public class func didReceiveNotificationExtensionRequest(
        _ request: UNNotificationRequest, with replacementContent: UNMutableNotificationContent?
    ) -> UNMutableNotificationContent? {
        didReceiveNotificationExtensionRequest(request, with: replacementContent, withContentHandler: nil)
    }

    /// On expiry OneSignal adds only the action buttons' category: no download is attempted, so the content the
    /// extension then delivers has no attachment.
    @discardableResult
    public class func serviceExtensionTimeWillExpireRequest(
        _ request: UNNotificationRequest, with replacementContent: UNMutableNotificationContent?
    ) -> UNMutableNotificationContent? {
        let content = replacementContent ?? (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
        let environment = content.environment ?? ExtensionEnvironment.current
        // The handler's own call (didReceive) has reported the buttons already; only a direct expiry call reports them.
        let reported = content.categoryIdentifier.hasPrefix("__onesignal__dynamic__")
        OneSignalButtons.apply(OneSignalNotification(request.content.payload), request: request, to: content, environment: environment, records: !reported)
        return content
    }
}
