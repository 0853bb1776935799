/// A communication notification (iOS 15): what `content.updating(from: intent)` tells the system about the
/// message's sender and conversation. The phone shows the sender's avatar in place of the app's icon and
/// the group's name for group conversations.
public struct Communication: Sendable, Hashable, Codable {
    /// The intent's class name: "INSendMessageIntent".
    public var intent: String
    public var senderName: String?
    /// The sender's image as decoded; nil when the intent has none (iOS then shows the sender's initials).
    public var avatar: Avatar?
    /// The conversation's name (`speakableGroupName`): group conversations only.
    public var groupName: String?
    public var conversationIdentifier: String?
    public var recipients: Int
    /// The extension donated the interaction (`INInteraction.donate`) before updating the content.
    public var donated: Bool

    public init(intent: String, senderName: String?, avatar: Avatar?, groupName: String?, conversationIdentifier: String?, recipients: Int, donated: Bool) {
        self.intent = intent
        self.senderName = senderName
        self.avatar = avatar
        self.groupName = groupName
        self.conversationIdentifier = conversationIdentifier
        self.recipients = recipients
        self.donated = donated
    }

    public struct Avatar: Sendable, Hashable, Codable {
        public var width: Int
        public var height: Int
        public var bytes: Int

        public init(width: Int, height: Int, bytes: Int) {
            self.width = width
            self.height = height
            self.bytes = bytes
        }
    }
}
