// The most common shape in public apps: URLSession.shared.downloadTask, move the file to a name with the
// right extension, attach it, call the handler from the completion.
import UserNotifications

class ClassicDownloadService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        guard let bestAttemptContent = bestAttemptContent,
              let urlString = bestAttemptContent.userInfo["image_url"] as? String,
              let fileUrl = URL(string: urlString) else {
            contentHandler(request.content)
            return
        }

        let task = URLSession.shared.downloadTask(with: fileUrl) { (location, response, error) in
            if let location = location {
                let tmpDirectory = NSTemporaryDirectory()
                let tmpFile = "file://".appending(tmpDirectory).appending(UUID().uuidString).appending("-").appending(fileUrl.lastPathComponent)
                let tmpUrl = URL(string: tmpFile)!
                try? FileManager.default.moveItem(at: location, to: tmpUrl)

                if let attachment = try? UNNotificationAttachment(identifier: "image", url: tmpUrl, options: nil) {
                    bestAttemptContent.attachments = [attachment]
                }
            }
            bestAttemptContent.title = "\(bestAttemptContent.title) [downloaded]"
            contentHandler(bestAttemptContent)
        }
        task.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
