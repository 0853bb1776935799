/// The fields of `UNNotificationContent` a Notification Service Extension sees and may change.
public struct NotificationContent: Sendable, Hashable, Codable {
    public var title: String = ""
    public var subtitle: String = ""
    public var body: String = ""
    /// A line whose text comes from the app's Localizable.strings: the key and arguments, since the emulator does
    /// not have the app's strings (the line itself shows the key).
    public var titleLocalization: Localization?
    public var subtitleLocalization: Localization?
    public var bodyLocalization: Localization?
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

    /// A localization key and the arguments that fill its format string.
    public struct Localization: Sendable, Hashable, Codable {
        public var key: String
        public var arguments: [String]
    }

    public init() {}

    /// Builds the content iOS hands the extension from the push's typed `aps`.
    public init(_ push: ReceivedPush) {
        self.init(userInfo: push.userInfo, aps: push.aps)
    }

    /// Builds the content from a payload dictionary.
    public init(userInfo: [String: JSONValue]) {
        self.init(userInfo: userInfo, aps: Aps(userInfo["aps"]))
    }

    private init(userInfo: [String: JSONValue], aps: Aps) {
        self.userInfo = userInfo
        (title, titleLocalization) = Self.line(aps.alert?.title)
        (subtitle, subtitleLocalization) = Self.line(aps.alert?.subtitle)
        (body, bodyLocalization) = Self.line(aps.alert?.body)
        badge = aps.badge
        switch aps.fields["sound"] {
        case .string(let name)?: sound = name
        case .object(let sound)?: self.sound = sound["name"]?.stringValue
        default: break
        }
        categoryIdentifier = aps.fields["category"]?.stringValue ?? ""
        threadIdentifier = aps.fields["thread-id"]?.stringValue ?? ""
        targetContentIdentifier = aps.fields["target-content-id"]?.stringValue
        interruptionLevel = aps.fields["interruption-level"]?.stringValue ?? "active"
        // UNNotificationContent's score is 0...1; a Live Activity's larger scores are ActivityKit's, not this.
        relevanceScore = aps.fields["relevance-score"]?.doubleValue.map { min(max($0, 0), 1) } ?? 0
    }

    /// The text a line shows, and its localization when the app's strings give the text.
    private static func line(_ text: AlertText?) -> (String, Localization?) {
        switch text {
        case .literal(let literal)?: (literal, nil)
        case .localized(let key, let arguments)?: (key, Localization(key: key, arguments: arguments))
        case nil: ("", nil)
        }
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

    public init(
        identifier: String, file: String?, type: String, bytes: Int, width: Int?, height: Int?, frames: Int?,
        sha256: String, thumbnail: ThumbnailOptions? = nil
    ) {
        self.identifier = identifier
        self.file = file
        self.type = type
        self.bytes = bytes
        self.width = width
        self.height = height
        self.frames = frames
        self.sha256 = sha256
        self.thumbnail = thumbnail
    }
}
