import Foundation
import NSEPipeline

/// How an action behaves when the user taps it.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// The icon of an action (iOS 15): an SF Symbol or an image of the app's asset catalog.
open class UNNotificationActionIcon: NSObject, @unchecked Sendable {
    // Immutable.
    public let systemImageName: String?
    public let templateImageName: String?

    public init(systemImageName: String) {
        self.systemImageName = systemImageName
        templateImageName = nil
        super.init()
    }

    public init(templateImageName: String) {
        systemImageName = nil
        self.templateImageName = templateImageName
        super.init()
    }
}

/// A button of a notification category.
open class UNNotificationAction: NSObject, @unchecked Sendable {
    // Immutable.
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions
    public let icon: UNNotificationActionIcon?

    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        icon = nil
        super.init()
    }

    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
        super.init()
    }

    open override var description: String { "\"\(title)\" (\(identifier))" }

    /// How findings name the button with what it does: `"Buy now" (buy, opens the app)`.
    package var summary: String {
        var traits: [String] = [identifier]
        if options.contains(.foreground) { traits.append("opens the app") }
        if options.contains(.destructive) { traits.append("destructive") }
        if options.contains(.authenticationRequired) { traits.append("needs unlock") }
        if self is UNTextInputNotificationAction { traits.append("text input") }
        return "\"\(title)\" (\(traits.joined(separator: ", ")))"
    }
}

/// A button that asks for text.
open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    public let textInputButtonTitle: String
    public let textInputPlaceholder: String

    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], textInputButtonTitle: String, textInputPlaceholder: String) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options)
    }

    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?, textInputButtonTitle: String, textInputPlaceholder: String) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options, icon: icon)
    }
}

public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
    public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)
}

/// A set of buttons a notification shows when its `categoryIdentifier` names the category. Two categories are the
/// same when their identifiers are, so a set holds one category per identifier.
open class UNNotificationCategory: NSObject, @unchecked Sendable {
    // Immutable.
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

    /// `"offer-42": "Buy now" (buy, opens the app), "Later" (later)`.
    package var summary: String {
        "\"\(identifier)\": " + (actions.isEmpty ? "no buttons" : actions.map(\.summary).joined(separator: ", "))
    }
}

extension UNUserNotificationCenter {
    /// The app's registered categories. A run starts with none: the harness cannot know what the app registered.
    public func getNotificationCategories(completionHandler: @escaping (Set<UNNotificationCategory>) -> Void) {
        completionHandler(StandInRun.environment?.notificationCategories ?? [])
    }

    public func notificationCategories() async -> Set<UNNotificationCategory> {
        StandInRun.environment?.notificationCategories ?? []
    }

    /// Registers the app's categories for this run (replacing the previous set, as on iOS); logged to the run.
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        StandInRun.environment?.notificationCategories = categories
        let described = categories.sorted { $0.identifier < $1.identifier }
            .map { "\"\($0.identifier)\" [\($0.actions.map(\.title).joined(separator: ", "))]" }
        StandInRun.log(.info, "setNotificationCategories(\(described.joined(separator: "; ")))", source: "UNUserNotificationCenter", subsystem: "com.apple.usernotifications", category: "categories")
    }
}
