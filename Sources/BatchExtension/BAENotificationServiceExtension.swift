import UserNotifications

/// Batch's drop-in extension: `class NotificationService: BAENotificationServiceExtension {}`. Everything goes
/// through `RichNotificationHelper`; the expiry call delivers nothing, so iOS shows the original content.
open class BAENotificationServiceExtension: UNNotificationServiceExtension {
    let richNotificationHelper = RichNotificationHelper()

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        richNotificationHelper.didReceive(request, withContentHandler: contentHandler)
    }

    open override func serviceExtensionTimeWillExpire() {
        richNotificationHelper.serviceExtensionTimeWillExpire()
    }
}
