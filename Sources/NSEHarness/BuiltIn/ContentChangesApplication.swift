import NSEPipeline
import UserNotifications

extension UNMutableNotificationContent {
    /// The command line's content changes (`--title-suffix`, `--badge`...), made as an extension's `didReceive`
    /// makes its own edits before it calls the SDK's helper: every built-in SDK extension calls this first.
    package func apply(_ changes: ContentChanges) {
        if let title = changes.title { self.title = title }
        if let suffix = changes.titleSuffix { self.title += suffix }
        if let subtitle = changes.subtitle { self.subtitle = subtitle }
        if let body = changes.body { self.body = body }
        if let badge = changes.badge { self.badge = NSNumber(value: badge) }
        if let sound = changes.sound { self.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        if let category = changes.categoryIdentifier { categoryIdentifier = category }
        if let thread = changes.threadIdentifier { threadIdentifier = thread }
    }
}
