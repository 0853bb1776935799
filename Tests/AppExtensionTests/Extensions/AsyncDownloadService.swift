// Swift concurrency: a Task in didReceive, try await URLSession.shared.download(from:), the file renamed after
// the response's suggestedFilename.
import UserNotifications

class AsyncDownloadService: UNNotificationServiceExtension {

    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        bestAttemptContent = content

        Task {
            if let link = content.userInfo["attachment-url"] as? String, let url = URL(string: link) {
                do {
                    let (location, response) = try await URLSession.shared.download(from: url)
                    let name = response.suggestedFilename ?? url.lastPathComponent
                    let destination = FileManager.default.temporaryDirectory
                        .appendingPathComponent(UUID().uuidString, isDirectory: true)
                    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
                    let file = destination.appendingPathComponent(name)
                    try FileManager.default.moveItem(at: location, to: file)
                    content.attachments = [try UNNotificationAttachment(identifier: "", url: file)]
                } catch {
                    content.subtitle = "no image"
                }
            }
            contentHandler(content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
