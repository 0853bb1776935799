import NSEKit
import UserNotifications

/// The command line's extension for each SDK: a built-in written as that SDK's documentation tells apps to write
/// theirs, importing the SDK's stand-in. nil for an SDK whose stand-in is not in this build.
public enum BuiltInExtensions {
    public static func make(_ sdk: PushSDK, changes: ContentChanges) -> UNNotificationServiceExtension? {
        switch sdk {
        case .mixpanel: MixpanelBuiltInService(changes: changes)
        case .airship: AirshipBuiltInService(changes: changes)
        case .pushwoosh: PushwooshBuiltInService(changes: changes)
        case .batch: BatchBuiltInService(changes: changes)
        case .notificare: NotificareBuiltInService(changes: changes)
        default: nil
        }
    }
}
