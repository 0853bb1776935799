import Foundation

/// How an action button behaves when tapped.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// An action button of a notification category. Immutable, as on iOS.
open class UNNotificationAction: NSObject, @unchecked Sendable {
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions

    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        super.init()
    }

    open override var description: String { "\"\(title)\" (\(identifier))" }
}

/// What a category does besides its actions.
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
}

/// A notification category: the action buttons iOS shows under a notification whose `categoryIdentifier` names
/// it. Equal by identifier, so a set holds one category per identifier as iOS keeps them.
open class UNNotificationCategory: NSObject, @unchecked Sendable {
    public let identifier: String
    public let actions: [UNNotificationAction]
    public let intentIdentifiers: [String]
    public let options: UNNotificationCategoryOptions

    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String], options: UNNotificationCategoryOptions = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationCategory)?.identifier == identifier
    }

    open override var hash: Int { identifier.hashValue }
}

extension UNUserNotificationCenter {
    /// Registers the app's categories for this run (replacing the previous set, as on iOS); logged to the run.
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        StandInRun.environment?.notificationCategories = categories
        let described = categories.sorted { $0.identifier < $1.identifier }
            .map { "\"\($0.identifier)\" [\($0.actions.map(\.title).joined(separator: ", "))]" }
        StandInRun.log(.info, "setNotificationCategories(\(described.joined(separator: "; ")))", source: "UNUserNotificationCenter", subsystem: "com.apple.usernotifications", category: "categories")
    }

    /// The categories registered in this run so far (none at the start: the emulated app registered none).
    public func getNotificationCategories(completionHandler: @escaping (Set<UNNotificationCategory>) -> Void) {
        completionHandler(StandInRun.environment?.notificationCategories ?? [])
    }

    public func notificationCategories() async -> Set<UNNotificationCategory> {
        StandInRun.environment?.notificationCategories ?? []
    }
}
