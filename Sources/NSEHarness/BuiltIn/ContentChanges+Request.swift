import NSEKit
import UserNotifications

extension ContentChanges {
    /// The request as an SDK's helper receives it from a built-in extension: the content with these changes made
    /// first, as an app does that edits the content before handing the request to its SDK. So an SDK that
    /// delivers "the original content" on failure delivers this one, changes included.
    func applied(to request: UNNotificationRequest) -> UNNotificationRequest {
        guard !isEmpty, let content = request.content.mutableCopy() as? UNMutableNotificationContent else { return request }
        apply(to: content)
        return UNNotificationRequest(identifier: request.identifier, content: content, trigger: request.trigger)
    }

    /// Makes the changes on `content`, as the Firebase built-in does before calling its helper.
    func apply(to content: UNMutableNotificationContent) {
        if let title { content.title = title }
        if let titleSuffix { content.title += titleSuffix }
        if let subtitle { content.subtitle = subtitle }
        if let body { content.body = body }
        if let badge { content.badge = NSNumber(value: badge) }
        if let sound { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        if let categoryIdentifier { content.categoryIdentifier = categoryIdentifier }
        if let threadIdentifier { content.threadIdentifier = threadIdentifier }
    }
}
