// Synchronous: Data(contentsOf:) on the remote URL right in didReceive, written to a file and attached.
import UserNotifications

class ContentsOfService: UNNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            return contentHandler(request.content)
        }
        if let aps = content.userInfo["aps"] as? [String: Any],
           let imageURLString = aps["image"] as? String ?? content.userInfo["image"] as? String,
           let imageURL = URL(string: imageURLString),
           let imageData = try? Data(contentsOf: imageURL) {
            // A name of its own: on Linux NSTemporaryDirectory() is /tmp, shared by every process (an app's tmp
            // folder on iOS is its own), and other test runs on the machine attach the same file.
            let fileURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("notification-image-\(UUID().uuidString).png")
            do {
                try imageData.write(to: fileURL, options: .atomic)
                let attachment = try UNNotificationAttachment(identifier: "image", url: fileURL, options: nil)
                content.attachments = [attachment]
            } catch {
                print("attachment error: \(error)")
            }
        }
        contentHandler(content)
    }
}
