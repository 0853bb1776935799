import Foundation
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports

/// One delivered notification as the phones page draws it, in the HTML report's own markup
/// (`HTMLReportRenderer.notification`, `androidNotification` and `card`: one renderer for both): the views the phone shows, the same with
/// Show Previews hiding the content, and the report's card that says why.
struct PhoneNotificationViews: Sendable {
    /// The collapsed and expanded notification with the content iOS (or Android) shows.
    var views: String
    /// What a place whose previews are hidden shows (the app and "Notification"); nil when no place hides them.
    var hiddenViews: String?
    /// The HTML report's card for the push: the verdict, the findings and their fixes.
    var card: String

    private struct Delivery: Decodable {
        var result: ProcessResult
    }

    /// The views of a delivery as the journal keeps it (`{"phone": ..., "result": ...}`); nil when it cannot be read.
    static func make(delivery: Data, device: DeviceEntry?) -> PhoneNotificationViews? {
        guard let result = try? JSONDecoder().decode(Delivery.self, from: delivery).result,
              let phone = (ServeState.object(delivery) as? [String: Any])?["phone"] as? [String: Any] else { return nil }
        let appName = device?.bundleId ?? "App"
        let renderer = HTMLReportRenderer(appName: appName)
        var card = ReportCard(result: result, exitStatus: result.exitStatus(strict: false))
        if let attachment = result.content?.attachments.first {
            if let path = attachment.file {
                card.use(ReportCard.Previews.make(attachment, file: URL(fileURLWithPath: path), limits: ImageDecodeLimits()))
            } else {
                card.previewProblem = "the attachment file was not kept"
            }
        }
        card.android = ReportCard.androidPreviews(
            result.android, file: result.android?.image?.file.map { URL(fileURLWithPath: $0) }, limits: ImageDecodeLimits())
        let views: String
        if device?.platform == .android, let android = result.android, android.notification != nil {
            // The notification the FCM SDK posts, with its image as the shade draws it.
            views = renderer.androidNotification(android, previews: card.android)
        } else if device?.platform != .android, let content = result.content {
            views = renderer.notification(content, card: card)
        } else {
            views = "<div class=\"nothing\">\(MarkupEscaping.escape(phone["why"] as? String ?? "Nothing is shown."))</div>\n"
        }
        var hiddenViews: String?
        if let hidden = phone["hiddenPreview"] as? [String: Any] {
            var content = NotificationContent()
            content.title = hidden["title"] as? String ?? appName
            content.body = hidden["body"] as? String ?? "Notification"
            hiddenViews = renderer.notification(content, card: ReportCard(result: result, exitStatus: card.exitStatus))
        }
        return PhoneNotificationViews(views: views, hiddenViews: hiddenViews, card: renderer.card(card))
    }
}
