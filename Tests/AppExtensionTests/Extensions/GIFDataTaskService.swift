// A data task with its own session and request (an auth header), writing the bytes to <uuid>.gif.
import Foundation
import UserNotifications

class GIFDataTaskService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?
    private var session: URLSession?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        guard let content = bestAttemptContent,
              let media = content.userInfo["media"] as? [String: Any],
              let link = media["url"] as? String,
              let url = URL(string: link) else {
            contentHandler(request.content)
            return
        }

        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 20
        let session = URLSession(configuration: configuration)
        self.session = session
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("Bearer push-media-token", forHTTPHeaderField: "Authorization")

        session.dataTask(with: urlRequest) { data, response, error in
            defer { contentHandler(content) }
            guard error == nil,
                  let data = data,
                  let http = response as? HTTPURLResponse, http.statusCode == 200 else {
                return
            }
            let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).gif")
            do {
                try data.write(to: file)
                let attachment = try UNNotificationAttachment(identifier: "gif", url: file, options: nil)
                content.attachments = [attachment]
            } catch {
                content.body = "attachment failed: \(error.localizedDescription)"
            }
        }.resume()
        session.finishTasksAndInvalidate()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
