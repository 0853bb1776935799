import FirebaseMessaging
import NSEPipeline
import UserNotifications

/// The command line's extension for `--sdk firebase`, written as Firebase's documentation tells apps to write
/// theirs: copy the content, make the changes, hand it to `populateNotificationContent`, deliver the best
/// attempt on expiry.
final class FirebaseBuiltInService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set at creation and read by `didReceive`; the harness's threads call the extension in turn.
    private let changes: ContentChanges
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?

    init(changes: ContentChanges) {
        self.changes = changes
        super.init()
    }

    required init() {
        changes = ContentChanges()
        super.init()
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            contentHandler(request.content)
            return
        }
        bestAttemptContent = content
        content.apply(changes)
        Messaging.serviceExtension().populateNotificationContent(content, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
