import NSEPipeline
import UserNotifications

extension ContentChanges {
    /// The content an SDK's helper delivers, with the command line's changes made on it, as an app that
    /// subclasses the SDK's extension does in the handler it passes to `super` (the SDKs' documented way to
    /// customise content). Unchanged when there are no changes.
    func applied(to delivered: UNNotificationContent) -> UNNotificationContent {
        guard !isEmpty, let content = delivered.mutableCopy() as? UNMutableNotificationContent else { return delivered }
        content.apply(self)
        return content
    }
}
