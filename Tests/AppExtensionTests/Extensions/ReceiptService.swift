// Posts a delivery receipt to the app's backend before delivering, as many apps do for analytics.
import UserNotifications

class ReceiptService: UNNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let messageID = request.content.userInfo["message_id"] as? String,
              let url = URL(string: "https://api.example.com/v1/receipts") else {
            contentHandler(request.content)
            return
        }
        var receipt = URLRequest(url: url)
        receipt.httpMethod = "POST"
        receipt.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = try? JSONSerialization.data(withJSONObject: ["message_id": messageID, "event": "delivered"])
        URLSession.shared.uploadTask(with: receipt, from: body) { _, response, _ in
            let content = request.content.mutableCopy() as! UNMutableNotificationContent
            if let http = response as? HTTPURLResponse {
                content.subtitle = "receipt \(http.statusCode)"
            }
            contentHandler(content)
        }.resume()
    }
}
