import NSEPipeline
import OneSignalExtension
import UserNotifications

/// The command line's extension for `--sdk onesignal`, written as OneSignal's documentation tells apps to
/// write theirs: keep the request and a mutable copy, hand both to `didReceiveNotificationExtensionRequest`,
/// and on expiry let OneSignal add its buttons and deliver the best attempt.
final class OneSignalBuiltInService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set at creation and read by `didReceive`; the harness's threads call the extension in turn.
    private let changes: ContentChanges
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var receivedRequest: UNNotificationRequest?
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
        receivedRequest = request
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        if let bestAttemptContent {
            bestAttemptContent.apply(changes)
            OneSignalExtension.didReceiveNotificationExtensionRequest(request, with: bestAttemptContent, withContentHandler: contentHandler)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent, let receivedRequest {
            OneSignalExtension.serviceExtensionTimeWillExpireRequest(receivedRequest, with: bestAttemptContent)
            contentHandler(bestAttemptContent)
        }
    }
}
