import NSEKit
import UserNotifications

/// The command line's built-in extension for each SDK: written as that SDK's documentation tells apps to write
/// theirs, run by the same harness. sdk-core owns this file; the SDK branches each add their `case` lines.
public enum BuiltInExtensions {
    public static func make(_ sdk: PushSDK, changes: ContentChanges) -> UNNotificationServiceExtension? {
        switch sdk {
        case .braze: BrazeBuiltInService(changes: changes)
        case .clevertap: CleverTapBuiltInService(changes: changes)
        case .iterable: IterableBuiltInService(changes: changes)
        case .customerio: CustomerIOBuiltInService(changes: changes)
        default: nil
        }
    }
}
