import Foundation
import NSEPipeline
import NSEPush

/// A notification already in Notification Center.
open class UNNotification: NSObject, @unchecked Sendable {
    // Immutable.
    public let request: UNNotificationRequest
    public let date: Date

    init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
        super.init()
    }
}

/// The app's notification center as the extension sees it: the delivered notifications are the run's
/// `DeviceProfile.deliveredNotifications`; badge changes are logged to the run.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    // Stateless: every call reads the calling run's environment.
    private static let shared = UNUserNotificationCenter()

    open class func current() -> UNUserNotificationCenter { shared }

    private var delivered: [UNNotification] {
        let environment = StandInRun.environment
        let contents = environment?.context.profile.deliveredNotifications ?? []
        return contents.enumerated().map { index, content in
            let request = UNNotificationRequest(
                identifier: "delivered-\(index + 1)", content: UNNotificationContent(content, environment: environment),
                trigger: UNPushNotificationTrigger())
            // Oldest first, a minute apart, ending a minute before now.
            return UNNotification(request: request, date: Date(timeIntervalSinceNow: -60 * Double(contents.count - index)))
        }
    }

    open func getDeliveredNotifications(completionHandler: @escaping ([UNNotification]) -> Void) {
        completionHandler(delivered)
    }

    open func deliveredNotifications() async -> [UNNotification] {
        delivered
    }

    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        StandInRun.log(.info, "removeDeliveredNotifications(withIdentifiers: \(identifiers))", source: "UNUserNotificationCenter", subsystem: "com.apple.usernotifications", category: "center")
    }

    open func removeAllDeliveredNotifications() {
        StandInRun.log(.info, "removeAllDeliveredNotifications()", source: "UNUserNotificationCenter", subsystem: "com.apple.usernotifications", category: "center")
    }

    /// Sets the app icon's badge (iOS 16); logged to the run.
    open func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: ((Error?) -> Void)? = nil) {
        StandInRun.log(.info, "setBadgeCount(\(newBadgeCount))", source: "UNUserNotificationCenter", subsystem: "com.apple.usernotifications", category: "badge")
        completionHandler?(nil)
    }

    open func setBadgeCount(_ newBadgeCount: Int) async throws {
        setBadgeCount(newBadgeCount, withCompletionHandler: nil)
    }
}
