// A Customer.io extension of an app whose pushes come through Firebase Cloud Messaging: it imports the FCM module
// (CioMessagingPushFCM) instead of the APNs one, and sets its App Group.
import CioMessagingPushFCM
import UserNotifications

class FCMNotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPushFCM.initializeForExtension(
            withConfig: MessagingPushConfigBuilder(cdpApiKey: "YOUR_CDP_API_KEY")
                .logLevel(.error)
                .appGroupId("group.com.example.shop.cio")
                .build()
        )
        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
