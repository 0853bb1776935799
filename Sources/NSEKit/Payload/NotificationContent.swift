/// The fields of `UNNotificationContent` a Notification Service Extension sees and may change.
public struct NotificationContent: Sendable, Hashable, Codable {
    public var title: String = ""
    public var subtitle: String = ""
    public var body: String = ""
    public var badge: Int?
    /// The sound's name; "default" for the system sound, nil for none.
    public var sound: String?
    public var categoryIdentifier: String = ""
    public var threadIdentifier: String = ""
    public var targetContentIdentifier: String?
    /// passive, active, time-sensitive or critical; iOS defaults to active.
    public var interruptionLevel: String = "active"
    public var relevanceScore: Double = 0
    public var userInfo: [String: JSONValue] = [:]
    public var attachments: [Attachment] = []
    /// Set when the extension made it a communication notification; absent otherwise.
    public var communication: Communication?

    public init() {}

    /// Builds the content iOS hands to the extension from a received payload's `aps`.
    public init(userInfo: [String: JSONValue]) {
        self.userInfo = userInfo
        let aps = userInfo["aps"]?.objectValue ?? [:]
        switch aps["alert"] {
        case .string(let text)?:
            body = text
        case .object(let alert)?:
            title = alert["title"]?.stringValue ?? ""
            subtitle = alert["subtitle"]?.stringValue ?? ""
            body = alert["body"]?.stringValue ?? ""
        default:
            break
        }
        badge = aps["badge"]?.integerValue
        switch aps["sound"] {
        case .string(let name)?: sound = name
        case .object(let sound)?: self.sound = sound["name"]?.stringValue
        default: break
        }
        categoryIdentifier = aps["category"]?.stringValue ?? ""
        threadIdentifier = aps["thread-id"]?.stringValue ?? ""
        targetContentIdentifier = aps["target-content-id"]?.stringValue
        interruptionLevel = aps["interruption-level"]?.stringValue ?? "active"
        relevanceScore = aps["relevance-score"]?.doubleValue ?? 0
    }
}

/// A file attached to the notification, as `UNNotificationAttachment` describes it.
public struct Attachment: Sendable, Hashable, Codable {
    /// The identifier; the system assigns a UUID when the extension passes "" (as Firebase's helper does).
    public var identifier: String
    /// Where the emulator saved the file (under `--out`), or nil when it was not kept.
    public var file: String?
    /// The type identifier iOS derives from the file extension (or the type hint).
    public var type: String
    public var bytes: Int
    public var width: Int?
    public var height: Int?
    public var frames: Int?
    public var sha256: String
    /// The thumbnail options the extension passed (absent when it passed none, as Firebase's helper does).
    public var thumbnail: ThumbnailOptions? = nil
}
