import Foundation
import UserNotifications
import NSEPush
import NSEBatch
import NSEMedia
import NSEPipeline
import NSEReports

/// `badge_inc` (`OneSignalExtensionBadgeHandler.m`): the count OneSignal caches in the app group's defaults
/// (`onesignalBadgeCount`), plus the increment, never below 0, becomes the badge.
enum OneSignalBadge {
    static let cacheKey = "onesignalBadgeCount"

    static func apply(_ notification: OneSignalNotification, to content: UNMutableNotificationContent, environment: ExtensionEnvironment?) {
        guard notification.badgeIncrement != 0 else { return }
        let cached = environment.flatMap(cachedCount(in:))
        let badge = max(0, (cached?.count ?? 0).addingReportingOverflow(notification.badgeIncrement).partialValue)
        content.badge = NSNumber(value: badge)
        let source = cached.map { "\($0.count), from the app group's \($0.file)" } ?? "0: none in the run's app group; seed one with a container holding Library/Preferences/<group>.plist"
        environment?.record(.info(.sdkOneSignalBadge, "OneSignal's `badge_inc` \(notification.badgeIncrement) sets the badge to \(badge): the count it caches (`\(cacheKey)`: \(source)) plus the increment, never below 0, replacing `aps.badge`."))
    }

    /// The cached count in the run's container: the app group's defaults live in `Library/Preferences/<suite>.plist`
    /// (the suite is the app group, `group.<bundle id>.onesignal` unless `OneSignal_app_groups_key` names another).
    private static func cachedCount(in environment: ExtensionEnvironment) -> (count: Int, file: String)? {
        let folder = environment.containerDirectory.appendingPathComponent("Library/Preferences")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".plist") }.sorted()
        for name in files {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                  let defaults = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
                  let count = (defaults[cacheKey] as? NSNumber)?.intValue else { continue }
            return (count, name)
        }
        return nil
    }
}

/// Action buttons (`OneSignalAttachmentHandler.addActionButtons`): a category `__onesignal__dynamic__<id>` is
/// registered with one foreground action per button (two buttons are registered in reverse order) and set on
/// the content, unless the payload already names a category (`aps.category`).
enum OneSignalButtons {
    /// `records`: false on the expiry call, which repeats what `didReceive` already did and reported.
    static func apply(_ notification: OneSignalNotification, request: UNNotificationRequest, to content: UNMutableNotificationContent, environment: ExtensionEnvironment?, records: Bool = true) {
        guard !notification.buttons.isEmpty else { return }
        let environment = records ? environment : nil
        guard request.content.categoryIdentifier.isEmpty else {
            environment?.record(.info(.sdkOneSignalButtons, "The payload names category \"\(request.content.categoryIdentifier)\", so OneSignal leaves it and does not register its \(notification.buttons.count) action button(s): the buttons shown are that category's."))
            return
        }
        let actions = notification.buttons.count == 2 ? notification.buttons.reversed() : notification.buttons
        // Objective-C formats a nil id as "(null)".
        let category = "__onesignal__dynamic__\(notification.notificationId ?? "(null)")"
        content.categoryIdentifier = category
        let listed = actions.map { "\"\($0.text)\" (\($0.id))" }.joined(separator: ", ")
        environment?.record(.info(.sdkOneSignalButtons, "OneSignal registers category \(category) with the actions \(listed) and sets it on the notification: the buttons show when the user expands it."))
    }
}

/// Confirmed delivery (`onNotificationReceived`, `OSRequestReceiveReceipts`): recorded, never sent.
enum OneSignalReceipt {
    static func record(_ notification: OneSignalNotification, waitsForAnswer: Bool, environment: ExtensionEnvironment?) {
        guard let id = notification.notificationId, !id.isEmpty else { return }
        let wait = waitsForAnswer ? ", after a random delay of up to 25 s, and keeps the extension running after the content handler until it is answered" : ""
        environment?.record(.info(.sdkOneSignalReceipt, "OneSignal would send its delivery receipt, PUT https://api.onesignal.com/notifications/\(id)/report_received with the app id and subscription id it saved in the app group\(wait) (recorded, not sent; sent only when the app has Confirmed Delivery on)."))
    }
}
