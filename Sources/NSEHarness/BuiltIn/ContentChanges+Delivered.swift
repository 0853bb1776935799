import NSEKit
import UserNotifications

extension ContentChanges {
    /// The content an SDK's helper delivers, with the command line's changes made on it, as an app that
    /// subclasses the SDK's extension does in the handler it passes to `super` (the SDKs' documented way to
    /// customise content). Unchanged when there are no changes.
    func applied(to delivered: UNNotificationContent) -> UNNotificationContent {
        guard !isEmpty, let content = delivered.mutableCopy() as? UNMutableNotificationContent else { return delivered }
        if let title { content.title = title }
        if let titleSuffix { content.title += titleSuffix }
        if let subtitle { content.subtitle = subtitle }
        if let body { content.body = body }
        if let badge { content.badge = NSNumber(value: badge) }
        if let sound { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        if let categoryIdentifier { content.categoryIdentifier = categoryIdentifier }
        if let threadIdentifier { content.threadIdentifier = threadIdentifier }
        return content
    }
}
