import NSEPush

/// FCM topic names: what `message.topic` and a device's subscriptions may be (Firebase: projects.messages
/// reference, `topic`: "matching the regular expression `[a-zA-Z0-9-_.~%]+`").
enum FCMTopic {
    static let rule = "letters, digits and - _ . ~ %, at most 900 characters"
    /// Firebase ("Topic messaging"): "One app instance can be subscribed to no more than 2000 topics."
    static let maxPerDevice = 2000

    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 900 && name.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == 45 || byte == 95 || byte == 46 || byte == 126 || byte == 37
        }
    }

    /// `message.topic` without the `/topics/` prefix FCM tolerates.
    static func name(_ topic: String) -> String {
        topic.hasPrefix("/topics/") ? String(topic.dropFirst(8)) : topic
    }
}

/// An FCM condition (`message.condition`): a boolean expression over topic subscriptions, as Firebase's "Send
/// messages to topics" page documents it: `'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)`,
/// the operators `&&`, `||` and `!`, parentheses, and at most five topics. Topic names are in single quotes.
/// "FCM first evaluates any conditions in parentheses, and then evaluates the expression from left to right":
/// `&&` and `||` have no precedence over each other, so `'A' in topics || 'B' in topics && 'C' in topics` is
/// `('A' || 'B') && 'C'`.
indirect enum FCMCondition: Equatable, Sendable {
    case subscribed(String)
    case not(FCMCondition)
    case and(FCMCondition, FCMCondition)
    case or(FCMCondition, FCMCondition)

    /// The most topics one condition may name (Firebase: "up to five topics in your conditional expression").
    static let maxTopics = 5
    /// Parentheses nest at most this deep: deeper is refused, never a deep recursion.
    static let maxDepth = 16

    /// Whether a device subscribed to `topics` is one the condition reaches.
    func matches(_ topics: Set<String>) -> Bool {
        switch self {
        case .subscribed(let topic): topics.contains(topic)
        case .not(let inner): !inner.matches(topics)
        case .and(let left, let right): left.matches(topics) && right.matches(topics)
        case .or(let left, let right): left.matches(topics) || right.matches(topics)
        }
    }

    /// The condition, or what is wrong with it in words for the sender (FCM answers INVALID_ARGUMENT).
    static func parse(_ text: String) -> Result<FCMCondition, ConditionError> {
        var parser = Parser(tokens: [], position: 0, topics: 0)
        switch tokenize(text) {
        case .failure(let error): return .failure(error)
        case .success(let tokens): parser.tokens = tokens
        }
        guard !parser.tokens.isEmpty else { return .failure(ConditionError("The condition is empty.")) }
        let parsed = parser.expression(depth: 0)
        guard case .success(let condition) = parsed else { return parsed }
        guard parser.position == parser.tokens.count else {
            return .failure(ConditionError("Unexpected \(parser.tokens[parser.position].text) after a complete condition."))
        }
        return .success(condition)
    }

    struct ConditionError: Error, Sendable, Equatable {
        var message: String

        init(_ message: String) {
            self.message = message
        }
    }

    private enum Token: Equatable {
        case topic(String), word(String), and, or, not, open, close

        var text: String {
            switch self {
            case .topic(let name): "'\(name)'"
            case .word(let word): "`\(word)`"
            case .and: "`&&`"
            case .or: "`||`"
            case .not: "`!`"
            case .open: "`(`"
            case .close: "`)`"
            }
        }
    }

    private static func tokenize(_ text: String) -> Result<[Token], ConditionError> {
        var tokens: [Token] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 32, 9, 10, 13:
                index += 1
            case 39:  // '
                guard let end = bytes[(index + 1)...].firstIndex(of: 39) else {
                    return .failure(ConditionError("A topic name's quote is not closed."))
                }
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                guard FCMTopic.isValid(name) else {
                    return .failure(ConditionError("'\(name)' is not a topic name (\(FCMTopic.rule))."))
                }
                tokens.append(.topic(name))
                index = end + 1
            case 38, 124:  // & |
                guard index + 1 < bytes.count, bytes[index + 1] == byte else {
                    return .failure(ConditionError("A lone `\(byte == 38 ? "&" : "|")`: the operators are `&&`, `||` and `!`."))
                }
                tokens.append(byte == 38 ? .and : .or)
                index += 2
            case 33: tokens.append(.not); index += 1
            case 40: tokens.append(.open); index += 1
            case 41: tokens.append(.close); index += 1
            default:
                var end = index
                while end < bytes.count, (bytes[end] >= 97 && bytes[end] <= 122) || (bytes[end] >= 65 && bytes[end] <= 90) { end += 1 }
                guard end > index else {
                    let character = String(decoding: bytes[index..<min(index + 1, bytes.count)], as: UTF8.self)
                    return .failure(ConditionError("Unexpected `\(character)`: topic names are in single quotes ('news')."))
                }
                tokens.append(.word(String(decoding: bytes[index..<end], as: UTF8.self)))
                index = end
            }
        }
        return .success(tokens)
    }

    private struct Parser {
        var tokens: [Token]
        var position: Int
        var topics: Int

        /// operand (( && | || ) operand)*, folded from the left.
        mutating func expression(depth: Int) -> Result<FCMCondition, ConditionError> {
            var left: FCMCondition
            switch operand(depth: depth) {
            case .failure(let error): return .failure(error)
            case .success(let condition): left = condition
            }
            while position < tokens.count, tokens[position] == .and || tokens[position] == .or {
                let isAnd = tokens[position] == .and
                position += 1
                switch operand(depth: depth) {
                case .failure(let error): return .failure(error)
                case .success(let right): left = isAnd ? .and(left, right) : .or(left, right)
                }
            }
            return .success(left)
        }

        /// `'topic' in topics`, `!` operand, or `(` expression `)`.
        mutating func operand(depth: Int) -> Result<FCMCondition, ConditionError> {
            guard depth < FCMCondition.maxDepth else {
                return .failure(ConditionError("Parentheses and `!` nest deeper than \(FCMCondition.maxDepth)."))
            }
            guard position < tokens.count else { return .failure(ConditionError("The condition ends where a topic was expected.")) }
            let token = tokens[position]
            position += 1
            switch token {
            case .not:
                return operand(depth: depth + 1).map { .not($0) }
            case .open:
                let inner = expression(depth: depth + 1)
                guard case .success = inner else { return inner }
                guard position < tokens.count, tokens[position] == .close else {
                    return .failure(ConditionError("A `(` is not closed."))
                }
                position += 1
                return inner
            case .topic(let name):
                guard position + 1 < tokens.count, tokens[position] == .word("in"), tokens[position + 1] == .word("topics") else {
                    return .failure(ConditionError("'\(name)' must be followed by `in topics`."))
                }
                position += 2
                topics += 1
                guard topics <= FCMCondition.maxTopics else {
                    return .failure(ConditionError("The condition names more than \(FCMCondition.maxTopics) topics."))
                }
                return .success(.subscribed(name))
            default:
                return .failure(ConditionError("Unexpected \(token.text) where a topic ('news' in topics), `!` or `(` was expected."))
            }
        }
    }
}

/// Who a topic or condition message reaches: the devices whose subscriptions it matches.
struct FCMAudience: Sendable {
    let matches: @Sendable (Set<String>) -> Bool

    /// The message's `topic` or `condition`; nil for a message with neither (a token's), or the field at fault.
    static func of(_ message: FCMMessage) -> Result<FCMAudience, Violation>? {
        if case .string(let topic)? = message.fields["topic"] {
            let name = FCMTopic.name(topic)
            guard FCMTopic.isValid(name) else {
                return .failure(Violation(field: "message.topic", description: "\"\(topic)\" is not a topic name (\(FCMTopic.rule))."))
            }
            return .success(FCMAudience { $0.contains(name) })
        }
        if case .string(let text)? = message.fields["condition"] {
            switch FCMCondition.parse(text) {
            case .failure(let error):
                return .failure(Violation(field: "message.condition", description: "Invalid condition \"\(text)\": \(error.message)"))
            case .success(let condition):
                return .success(FCMAudience { condition.matches($0) })
            }
        }
        return nil
    }

    struct Violation: Error, Sendable {
        var field: String
        var description: String
    }

    /// A topic or condition message's ID as FCM gives it: a decimal number (a v1 answer quoted in beste/firebase-php
    /// #925, `projects/my-project/messages/6810356097230477954`; the legacy API's topic `message_id` was one too,
    /// firebase/quickstart-android #573), where a token's message ID is `0:<microseconds>%<hex>`.
    static func messageID() -> String {
        String(UInt64.random(in: 1_000_000_000_000_000_000...UInt64(Int64.max)))
    }
}
