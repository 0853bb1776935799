// Batch's manual integration, for an extension that cannot subclass BAENotificationServiceExtension: the rich
// helper and the display receipt helper called from the app's own class.
import BatchExtension
import UserNotifications

class ManualHelpersService: UNNotificationServiceExtension {
    let richHelper = BAERichNotificationHelper()
    let receiptHelper = BAEDisplayReceiptHelper()

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        receiptHelper.didReceive(request)
        richHelper.didReceive(request, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        receiptHelper.serviceExtensionTimeWillExpire()
        richHelper.serviceExtensionTimeWillExpire()
    }
}
