@_exported import Foundation
import NSEPush

/// The content of a notification, as `UserNotifications` on iOS describes it: read-only here,
/// writable in `UNMutableNotificationContent`. `mutableCopy()` and `copy()` work as on iOS.
///
/// Instances are shared between the extension's threads exactly as on iOS, where the class is not
/// thread-safe either; `@unchecked Sendable` mirrors Apple's annotation, and the extension owns the locking.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, NSSecureCoding, @unchecked Sendable {
    package struct Fields {
        package init() {}
        package var title = ""
        package var subtitle = ""
        package var body = ""
        package var badge: NSNumber?
        package var sound: UNNotificationSound?
        package var launchImageName = ""
        package var attachments: [UNNotificationAttachment] = []
        package var userInfo: [AnyHashable: Any] = [:]
        /// `userInfo` as the payload's typed values, while the extension has not replaced it: read back as they
        /// came, not converted from Foundation values a second time.
        package var typedUserInfo: [String: JSONValue]?
        /// The emulator's content this was made from, so what UserNotifications does not model (the alert's
        /// localization keys) survives the way back.
        package var origin: NotificationContent?
        package var categoryIdentifier = ""
        package var threadIdentifier = ""
        package var targetContentIdentifier: String?
        package var summaryArgument = ""
        package var summaryArgumentCount = 0
        package var interruptionLevel: UNNotificationInterruptionLevel = .active
        package var relevanceScore: Double = 0
        package var filterCriteria: String?
        package var communication: Communication?
    }

    package var fields = Fields()
    /// The harness run this content belongs to; carried through copies so helpers such as Firebase's find
    /// the run's time budget and network settings from the content they are given.
    package var environment: ExtensionEnvironment?

    public override init() {
        super.init()
    }

    package init(fields: Fields, environment: ExtensionEnvironment?) {
        self.fields = fields
        self.environment = environment
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        nil
    }

    public func encode(with coder: NSCoder) {}

    open var title: String { fields.title }
    open var subtitle: String { fields.subtitle }
    open var body: String { fields.body }
    open var badge: NSNumber? { fields.badge }
    open var sound: UNNotificationSound? { fields.sound }
    open var launchImageName: String { fields.launchImageName }
    open var attachments: [UNNotificationAttachment] { fields.attachments }
    open var userInfo: [AnyHashable: Any] { fields.userInfo }
    open var categoryIdentifier: String { fields.categoryIdentifier }
    open var threadIdentifier: String { fields.threadIdentifier }
    open var targetContentIdentifier: String? { fields.targetContentIdentifier }
    open var summaryArgument: String { fields.summaryArgument }
    open var summaryArgumentCount: Int { fields.summaryArgumentCount }
    open var interruptionLevel: UNNotificationInterruptionLevel { fields.interruptionLevel }
    open var relevanceScore: Double { fields.relevanceScore }
    open var filterCriteria: String? { fields.filterCriteria }

    open func copy(with zone: NSZone? = nil) -> Any {
        UNNotificationContent(fields: fields, environment: environment)
    }

    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        UNMutableNotificationContent(fields: fields, environment: environment)
    }
}

/// Content an extension may change: every field iOS lets a Notification Service Extension set.
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    open override var title: String {
        get { fields.title }
        set { fields.title = newValue }
    }
    open override var subtitle: String {
        get { fields.subtitle }
        set { fields.subtitle = newValue }
    }
    open override var body: String {
        get { fields.body }
        set { fields.body = newValue }
    }
    open override var badge: NSNumber? {
        get { fields.badge }
        set { fields.badge = newValue }
    }
    open override var sound: UNNotificationSound? {
        get { fields.sound }
        set { fields.sound = newValue }
    }
    open override var launchImageName: String {
        get { fields.launchImageName }
        set { fields.launchImageName = newValue }
    }
    open override var attachments: [UNNotificationAttachment] {
        get { fields.attachments }
        set { fields.attachments = newValue }
    }
    open override var userInfo: [AnyHashable: Any] {
        get { fields.userInfo }
        set {
            fields.userInfo = newValue
            fields.typedUserInfo = nil
        }
    }
    open override var categoryIdentifier: String {
        get { fields.categoryIdentifier }
        set { fields.categoryIdentifier = newValue }
    }
    open override var threadIdentifier: String {
        get { fields.threadIdentifier }
        set { fields.threadIdentifier = newValue }
    }
    open override var targetContentIdentifier: String? {
        get { fields.targetContentIdentifier }
        set { fields.targetContentIdentifier = newValue }
    }
    open override var summaryArgument: String {
        get { fields.summaryArgument }
        set { fields.summaryArgument = newValue }
    }
    open override var summaryArgumentCount: Int {
        get { fields.summaryArgumentCount }
        set { fields.summaryArgumentCount = newValue }
    }
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { fields.interruptionLevel }
        set { fields.interruptionLevel = newValue }
    }
    /// iOS clamps the score to 0...1.
    open override var relevanceScore: Double {
        get { fields.relevanceScore }
        set { fields.relevanceScore = min(max(newValue, 0), 1) }
    }
    open override var filterCriteria: String? {
        get { fields.filterCriteria }
        set { fields.filterCriteria = newValue }
    }
}
