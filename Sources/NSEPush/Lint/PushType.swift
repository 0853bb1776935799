/// The `apns-push-type` header's values and what each asks of the request and where the push goes
/// (Apple: "Sending notification requests to APNs"; "Starting and updating Live Activities with ActivityKit push
/// notifications").
public enum PushType: String, Sendable, Codable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// What APNs and the device make of one push type: a row of the table below.
    public struct Rules: Sendable {
        /// The suffix `apns-topic` carries after the bundle ID; nil for the bundle ID itself (alert, background)
        /// or a topic of its own (mdm).
        public var topicSuffix: String?
        /// The priorities Apple allows; any other valid priority is an error for this type.
        public var priorities: Set<String>
        /// The largest payload APNs accepts.
        public var payloadLimit: Int
        /// Where the device hands the push: its row in the destinations' table (`Destination.row`).
        public var destination: Destination { Destination.byPushType[type] ?? .notificationCenter }
        let type: PushType
    }

    private static let allPriorities: Set<String> = ["10", "5", "1"]

    /// The one table of push types.
    public var rules: Rules {
        let standard = DeliveryRules.maxPayloadBytes
        switch self {
        case .alert: return Rules(topicSuffix: nil, priorities: Self.allPriorities, payloadLimit: standard, type: self)
        // "Always use priority 5. Using priority 10 is an error."
        case .background: return Rules(topicSuffix: nil, priorities: ["5"], payloadLimit: standard, type: self)
        case .location: return Rules(topicSuffix: ".location-query", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .voip: return Rules(topicSuffix: ".voip", priorities: Self.allPriorities, payloadLimit: 5120, type: self)
        case .complication: return Rules(topicSuffix: ".complication", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .fileprovider: return Rules(topicSuffix: ".pushkit.fileprovider", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .mdm: return Rules(topicSuffix: nil, priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .liveactivity: return Rules(topicSuffix: ".push-type.liveactivity", priorities: ["10", "5"], payloadLimit: standard, type: self)
        case .pushtotalk: return Rules(topicSuffix: ".voip-ptt", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .widgets: return Rules(topicSuffix: ".push-type.widgets", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        case .controls: return Rules(topicSuffix: ".push-type.controls", priorities: Self.allPriorities, payloadLimit: standard, type: self)
        }
    }

    public var topicSuffix: String? { rules.topicSuffix }

    public var payloadLimit: Int { rules.payloadLimit }

    /// The push type whose topic suffix `topic` ends with, if any.
    static func owningSuffix(of topic: String) -> PushType? {
        bySuffix.first { topic.hasSuffix($0.suffix) }?.type
    }

    /// The push types that have a topic suffix, longest suffix first: `.push-type.liveactivity` before any shorter
    /// suffix it might end with. Read from the table once, not at every push.
    private static let bySuffix: [(type: PushType, suffix: String)] = allCases
        .compactMap { type in type.topicSuffix.map { (type, $0) } }
        .sorted { $0.suffix.count > $1.suffix.count }
}

extension ReceivedPush {
    /// The most bytes APNs accepts for this push.
    public var payloadLimit: Int {
        pushType?.payloadLimit ?? DeliveryRules.maxPayloadBytes
    }
}
