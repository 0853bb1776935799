import AirshipNotificationServiceExtension
import BatchExtension
import BrazeNotificationService
import CTNotificationService
import IterableAppExtensions
import Mixpanel
import NSEPipeline
import NSEPush
import UserNotifications

/// The command line's built-in extension for each SDK: an extension written as that SDK's documentation tells
/// apps to write theirs, importing the SDK's stand-in module, run by `HarnessRunner` as an app's own would be.
/// One `case` per SDK: every SDK nse knows has its stand-in in the build.
public enum BuiltInExtensions {
    public static func make(_ sdk: PushSDK, changes: ContentChanges) -> UNNotificationServiceExtension {
        switch sdk {
        case .firebase: return FirebaseBuiltInService(changes: changes)
        case .onesignal: return OneSignalBuiltInService(changes: changes)
        case .braze: return ChangedSDKExtension(BrazeNotificationService.NotificationService(), changes: changes, at: .beforeTheSDK)
        case .clevertap: return ChangedSDKExtension(CTNotificationServiceExtension(), changes: changes, at: .beforeTheSDK)
        case .iterable: return ChangedSDKExtension(ITBNotificationServiceExtension(), changes: changes, at: .beforeTheSDK)
        case .customerio: return CustomerIOBuiltInService(changes: changes)
        case .pushwoosh: return PushwooshBuiltInService(changes: changes)
        case .batch: return ChangedSDKExtension(BAENotificationServiceExtension(), changes: changes, at: .onWhatTheSDKDelivers)
        case .airship: return ChangedSDKExtension(UANotificationServiceExtension(), changes: changes, at: .onWhatTheSDKDelivers)
        case .mixpanel: return ChangedSDKExtension(MPNotificationServiceExtension(), changes: changes, at: .onWhatTheSDKDelivers)
        case .notificare: return NotificareBuiltInService(changes: changes)
        }
    }
}
