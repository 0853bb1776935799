/// The edits the built-in extension makes to the text and metadata, such as appending " [modified]" to the title.
public struct ContentChanges: Sendable, Hashable {
    public var title: String?
    public var titleSuffix: String?
    public var subtitle: String?
    public var body: String?
    public var badge: Int?
    public var sound: String?
    public var categoryIdentifier: String?
    public var threadIdentifier: String?

    public init(
        title: String? = nil, titleSuffix: String? = nil, subtitle: String? = nil, body: String? = nil,
        badge: Int? = nil, sound: String? = nil, categoryIdentifier: String? = nil, threadIdentifier: String? = nil
    ) {
        self.title = title
        self.titleSuffix = titleSuffix
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
    }

    public var isEmpty: Bool { self == ContentChanges() }
}
