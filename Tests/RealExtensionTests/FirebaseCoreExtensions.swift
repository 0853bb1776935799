// Firebase extensions that configure FirebaseCore before calling the Messaging helper, as apps that share Firebase
// set-up code with their app target do.
import FirebaseCore
import FirebaseMessaging
import UserNotifications

/// Configures the default app once (the process may serve several pushes), quiets Firebase's log, then lets
/// Firebase's helper attach the image.
class ConfiguringFirebaseService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        if FirebaseApp.app() == nil {
            FirebaseApp.configure()
        }
        FirebaseConfiguration.shared.setLoggerLevel(.min)
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let bestAttemptContent else { return contentHandler(request.content) }
        bestAttemptContent.subtitle = FirebaseApp.app()?.options.projectID ?? "no project"
        Messaging.serviceExtension().populateNotificationContent(bestAttemptContent, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// Configures the default app in code, then again for another project: Firebase raises, and the extension dies.
class ReconfiguringFirebaseService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        FirebaseApp.configure(options: FirebaseOptions(googleAppID: "1:1234567890:ios:abc123", gcmSenderID: "1234567890"))
        let staging = FirebaseOptions(googleAppID: "1:9876543210:ios:def456", gcmSenderID: "9876543210")
        staging.projectID = "shop-staging"
        FirebaseApp.configure(options: staging)
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.title = "configured twice"
        contentHandler(content)
    }
}
