// PushwooshFramework.h (the XCFramework's umbrella header, pushwoosh-ios-sdk 7.1.3) imports Foundation and, on iOS,
// UserNotifications: Swift sees both re-exported, so an extension file may import only PushwooshFramework.
@_exported import Foundation
@_exported import UserNotifications
import Synchronization

/// Pushwoosh's drop-in extension (7.1+): `class NotificationService: PushwooshNotificationServiceExtension {}`.
/// It sends the delivery event, sets the badge from `aps.pw_badge`, attaches `attachment`, and on expiry delivers
/// the best attempt.
open class PushwooshNotificationServiceExtension: UNNotificationServiceExtension {
    private let processors = Mutex<[PWNotificationServiceProcessor]>([])

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let groups = pushwooshAppGroupsName().flatMap { $0.isEmpty ? nil : $0 } ?? PushwooshConfig.appGroupsName
        let processor = PWNotificationServiceProcessor(request: request, appGroupsName: groups, completion: contentHandler)
        processors.withLock { $0.append(processor) }
        pushwooshPrepare(for: request) { processor.process() }
    }

    open override func serviceExtensionTimeWillExpire() {
        processors.withLock { $0 }.forEach { $0.expire() }
    }

    /// Runs before Pushwoosh processes the push; call `completion` exactly once. The default calls it at once.
    open func pushwooshPrepare(for request: UNNotificationRequest, completion: @escaping () -> Void) {
        completion()
    }

    /// The App Group for the badge count; nil reads `PW_APP_GROUPS_NAME` from the Info.plist.
    open func pushwooshAppGroupsName() -> String? {
        nil
    }
}

/// Pushwoosh's older entry point, deprecated since 7.1 but still in the SDK and in many extensions:
/// `PWNotificationExtensionManager.shared().handle(request, contentHandler: contentHandler)`. The same processing,
/// without an expiry path of its own (the extension's `serviceExtensionTimeWillExpire()` must deliver).
open class PWNotificationExtensionManager: NSObject, @unchecked Sendable {
    // Stateless: each call makes its own processor.
    private static let manager = PWNotificationExtensionManager()

    public class func shared() -> PWNotificationExtensionManager {
        manager
    }

    public func handle(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) {
        handle(request, appGroupsName: PushwooshConfig.appGroupsName, contentHandler: contentHandler)
    }

    public func handle(_ request: UNNotificationRequest, withAppGroups appGroupsName: String, contentHandler: @escaping (UNNotificationContent) -> Void) {
        handle(request, appGroupsName: appGroupsName, contentHandler: contentHandler)
    }

    private func handle(_ request: UNNotificationRequest, appGroupsName: String?, contentHandler: @escaping (UNNotificationContent) -> Void) {
        PWNotificationServiceProcessor(request: request, appGroupsName: appGroupsName, completion: contentHandler).process()
    }
}

/// What Pushwoosh reads from the extension's Info.plist (`PWConfig`).
enum PushwooshConfig {
    static var appGroupsName: String? {
        (Bundle.main.object(forInfoDictionaryKey: "PW_APP_GROUPS_NAME") as? String)?.trimmingCharacters(in: .whitespaces)
    }
}
