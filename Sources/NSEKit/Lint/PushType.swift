/// The `apns-push-type` header's values and what each asks of the request (device-behaviour.md, section 5).
public enum PushType: String, Sendable, Codable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk

    /// The suffix `apns-topic` carries after the bundle ID; nil for the bundle ID itself (alert, background) or
    /// a topic of its own (mdm).
    public var topicSuffix: String? {
        switch self {
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .alert, .background, .mdm: nil
        }
    }

    /// The largest payload APNs accepts for this push type.
    public var payloadLimit: Int {
        self == .voip ? 5120 : DeliveryRules.maxPayloadBytes
    }
}

extension ReceivedPush {
    /// The header's value, whatever the case of its name (HTTP/2 header names are lowercase on the wire).
    func header(_ name: String) -> JSONValue? {
        headers?.first { $0.key.lowercased() == name }?.value
    }

    /// The push type the request declares, when it declares a valid one.
    public var pushType: PushType? {
        header("apns-push-type")?.stringValue.flatMap(PushType.init(rawValue:))
    }

    /// The most bytes APNs accepts for this push.
    public var payloadLimit: Int {
        pushType?.payloadLimit ?? DeliveryRules.maxPayloadBytes
    }
}
