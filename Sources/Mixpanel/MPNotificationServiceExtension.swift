import NSEPush
import Synchronization
import UserNotifications

/// Mixpanel's notification service extension (mixpanel-iphone 3.x, `Mixpanel/MPNotificationServiceExtension.m`;
/// removed in 4.0). Apps subclass it: `class NotificationService: MPNotificationServiceExtension {}`.
///
/// For a push with an `mp` key it tracks `$push_notification_received`, gives the content a category (the
/// payload's own, or a new one named after the current time with a button per `mp_buttons` entry), then
/// downloads `mp_media_url` and saves it under the URL string's path extension. Any failure of the media
/// (download, attachment) hands a nil attachment to `[NSArray arrayWithObject:]`, which raises: the extension
/// crashes and iOS shows the original content.
open class MPNotificationServiceExtension: UNNotificationServiceExtension {
    /// Unchecked: only ever read or written inside `pending`'s lock.
    private struct Pending: @unchecked Sendable {
        var handler: ((UNNotificationContent) -> Void)?
        var bestAttempt: UNMutableNotificationContent?
    }

    // The SDK does not lock these; the emulator does, so the expiry thread and the download's thread do not race.
    private let pending = Mutex(Pending())

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let environment = ExtensionEnvironment.current
        guard Mixpanel.isMixpanelPushNotification(request.content) else {
            environment?.record(MixpanelFindings.notMixpanel(hasMedia: request.content.userInfo[SDKDescriptor.mixpanel.mediaKey] != nil))
            contentHandler(request.content)
            return
        }
        let content = request.content.mutableCopy() as? UNMutableNotificationContent ?? UNMutableNotificationContent()
        pending.withLock { $0 = Pending(handler: contentHandler, bestAttempt: content) }
        Mixpanel.trackPushNotificationEvent(from: request, event: "$push_notification_received")

        // The category first, "since it's faster", then the media; the handler gets the best attempt after both.
        categoryIdentifier(for: request.content, environment: environment) { category in
            content.categoryIdentifier = category
            self.buildAttachments(for: request.content, environment: environment) { attachments in
                if let attachments { content.attachments = attachments }
                contentHandler(content)
            }
        }
    }

    open override func serviceExtensionTimeWillExpire() {
        let (handler, content) = pending.withLock { ($0.handler, $0.bestAttempt) }
        if let handler, let content { handler(content) }
    }

    /// The payload's category, else a new one registered with the notification center before it is used.
    private func categoryIdentifier(for content: UNNotificationContent, environment: ExtensionEnvironment?, completion: @escaping (String) -> Void) {
        if !content.categoryIdentifier.isEmpty {
            environment?.record(MixpanelFindings.payloadCategory(content.categoryIdentifier))
            completion(content.categoryIdentifier)
            return
        }
        let identifier = "\(Date().timeIntervalSince1970)"
        let buttons = content.userInfo["mp_buttons"]
        guard buttons == nil || buttons is [Any] else {
            environment?.crash(MixpanelFindings.buttonsNotArray)
            return
        }
        let entries = buttons as? [Any] ?? []
        let actions = entries.enumerated().map { index, entry in
            UNNotificationAction(
                identifier: "MP_ACTION_\(index)", title: ((entry as? [String: Any])?["lbl"] as? String) ?? "", options: .foreground)
        }
        let category = UNNotificationCategory(identifier: identifier, actions: actions, intentIdentifiers: [], options: .customDismissAction)
        let untitled = entries.filter { (($0 as? [String: Any])?["lbl"] as? String) == nil }.count
        environment?.record(MixpanelFindings.createdCategory(identifier, titles: actions.map(\.title), untitled: untitled))
        let center = UNUserNotificationCenter.current()
        center.getNotificationCategories { categories in
            var updated = categories
            updated.insert(category)
            center.setNotificationCategories(updated)
            completion(identifier)
        }
    }

    /// nil when there is no media to attach; an array of the one attachment otherwise.
    private func buildAttachments(for content: UNNotificationContent, environment: ExtensionEnvironment?, completion: @escaping ([UNNotificationAttachment]?) -> Void) {
        guard let value = content.userInfo[SDKDescriptor.mixpanel.mediaKey] else {
            completion(nil)
            return
        }
        environment?.noteImageRequested()
        guard let urlString = value as? String else {
            // `[mediaUrl pathExtension]` on an NSNumber or a dictionary: an unrecognized selector.
            environment?.crash(MixpanelFindings.mediaURLNotString)
            return
        }
        let fileExtension = MixpanelFindings.pathExtension(ofURLString: urlString)
        loadAttachment(urlString, fileExtension: fileExtension, environment: environment) { attachment in
            guard let attachment else {
                environment?.crash(MixpanelFindings.nilAttachment(urlString, fileExtension: fileExtension))
                return
            }
            completion([attachment])
        }
    }

    private func loadAttachment(_ urlString: String, fileExtension: String, environment: ExtensionEnvironment?, completion: @escaping (UNNotificationAttachment?) -> Void) {
        guard let url = URL(string: urlString) else {
            completion(nil)
            return
        }
        let session = URLSession(configuration: .default)
        session.downloadTask(with: url) { location, _, error in
            guard error == nil, let location else {
                completion(nil)
                return
            }
            // The download's path plus "." and the extension taken from the URL string, query and all.
            let local = URL(fileURLWithPath: location.path + "." + fileExtension)
            try? FileManager.default.moveItem(at: location, to: local)
            completion(try? UNNotificationAttachment(identifier: "", url: local, options: nil))
        }.resume()
    }
}
