/// The checks that decide whether APNs accepts a payload at all (Apple: "Generating a remote notification",
/// "Sending notification requests to APNs").
public enum DeliveryRules {
    /// APNs rejects larger payloads (5120 for VoIP pushes, which never reach a service extension).
    public static let maxPayloadBytes = 4096

    /// Errors here mean APNs rejects the push: nothing reaches the phone.
    public static func check(_ push: ReceivedPush) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        if push.payloadBytes > push.payloadLimit {
            findings.append(.error(
                .payloadTooLarge,
                "The payload is \(push.payloadBytes) bytes; APNs rejects payloads over \(push.payloadLimit) bytes, so nothing reaches the phone. Move large data out of the payload (fetch it in the extension) or shorten the text."))
        }
        // An FCM message need not carry `aps` (data-only, Android-only, web-only messages): FCM's own rules judge
        // the `aps` it has (`fcm.apns-payload-aps`). An APNs payload without one is refused.
        guard push.fcmMessage == nil else { return findings }
        switch push.aps.presence {
        case .present:
            break
        case .missing:
            findings.append(.error(
                .payloadApsMissing,
                "The payload has no `aps` dictionary, so iOS shows nothing. Add `\"aps\": {\"alert\": {...}, \"mutable-content\": 1}`."))
        case .notObject(let other):
            findings.append(.error(
                .payloadApsMissing,
                "`aps` is \(other.shortDescription), not a dictionary, so iOS shows nothing. Make `aps` an object with `alert` and `mutable-content`."))
        }
        return findings
    }
}
