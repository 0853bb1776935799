// A common bug: attaching the download task's file as it is. Its name ends in .tmp, so iOS cannot tell the type
// (UNError 101), and it is deleted when the completion handler returns anyway.
import UserNotifications

class TmpFileService: UNNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let bestAttemptContent = request.content.mutableCopy() as! UNMutableNotificationContent
        guard let urlString = request.content.userInfo["image_url"] as? String, let url = URL(string: urlString) else {
            contentHandler(bestAttemptContent)
            return
        }
        URLSession.shared.downloadTask(with: url) { location, _, _ in
            if let location = location {
                do {
                    let attachment = try UNNotificationAttachment(identifier: "image", url: location, options: nil)
                    bestAttemptContent.attachments = [attachment]
                } catch {
                    bestAttemptContent.body = "UNError \((error as NSError).code)"
                }
            }
            contentHandler(bestAttemptContent)
        }.resume()
    }
}
