// Attaches in the download's completion but forgets to call the handler there: only
// serviceExtensionTimeWillExpire() delivers, when the budget is over.
import UserNotifications

class ExpiryOnlyService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let urlString = request.content.userInfo["image_url"] as? String, let url = URL(string: urlString) else { return }
        URLSession.shared.downloadTask(with: url) { [weak self] location, response, error in
            guard let self = self, let location = location, let content = self.bestAttemptContent else { return }
            let file = location.deletingPathExtension().appendingPathExtension("png")
            try? FileManager.default.moveItem(at: location, to: file)
            if let attachment = try? UNNotificationAttachment(identifier: "image", url: file, options: nil) {
                content.attachments = [attachment]
            }
        }.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
