// A session with a delegate (URLSessionDownloadDelegate), as some SDK-style extensions do.
import UserNotifications

class DelegateDownloadService: UNNotificationServiceExtension, URLSessionDownloadDelegate {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?
    lazy var session: URLSession = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let link = request.content.userInfo["image_url"] as? String, let url = URL(string: link) else {
            contentHandler(request.content)
            return
        }
        session.downloadTask(with: url).resume()
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let content = bestAttemptContent else { return }
        let ext = (downloadTask.response?.mimeType == "image/png") ? "png" : "jpg"
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).\(ext)")
        do {
            try FileManager.default.moveItem(at: location, to: file)
            content.attachments = [try UNNotificationAttachment(identifier: "image", url: file)]
        } catch {
            content.body = "failed: \(error)"
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error = error { bestAttemptContent?.subtitle = "error \((error as NSError).code)" }
        if let contentHandler = contentHandler, let content = bestAttemptContent {
            contentHandler(content)
        }
        session.finishTasksAndInvalidate()
    }

    override func serviceExtensionTimeWillExpire() {
        session.invalidateAndCancel()
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
