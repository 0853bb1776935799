import NSEPipeline
import NotificareNotificationServiceExtensionKit
import UserNotifications

/// `--sdk notificare`: Notificare's documented extension (the Xcode template calling
/// `NotificareNotificationServiceExtension.handleNotificationRequest`, delivering `request.content` on failure and
/// the best attempt on expiry), with the command line's content changes made on what it delivers.
final class NotificareBuiltInService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set in didReceive, read in the expiry call (the harness's threads, in turn), as the template does.
    private var changes = ContentChanges()
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?

    convenience init(changes: ContentChanges) {
        self.init()
        self.changes = changes
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let changes = changes
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        NotificareNotificationServiceExtension.handleNotificationRequest(request) { result in
            switch result {
            case .success(let content): contentHandler(changes.applied(to: content))
            case .failure: contentHandler(changes.applied(to: request.content))
            }
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(changes.applied(to: bestAttemptContent)) }
    }
}
