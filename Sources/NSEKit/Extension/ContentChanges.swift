/// The edits an extension makes to the text and metadata, such as appending " [modified]" to the title.
public struct ContentChanges: ExtensionStep, Hashable {
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

    public var name: String { "content" }

    public var isEmpty: Bool { self == ContentChanges() }

    public func run(_ state: inout ExtensionState, context: ExtensionContext) async throws(TimeBudgetExpired) {
        var content = state.bestAttemptContent
        if let title { content.title = title }
        if let titleSuffix { content.title += titleSuffix }
        if let subtitle { content.subtitle = subtitle }
        if let body { content.body = body }
        if let badge { content.badge = badge }
        if let sound { content.sound = sound }
        if let categoryIdentifier { content.categoryIdentifier = categoryIdentifier }
        if let threadIdentifier { content.threadIdentifier = threadIdentifier }
        state.bestAttemptContent = content
    }
}
