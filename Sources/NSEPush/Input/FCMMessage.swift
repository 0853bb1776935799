/// An FCM HTTP v1 message: the fields that decide what an iPhone receives.
public struct FCMMessage: Sendable {
    public var notification: [String: JSONValue]
    public var data: [String: JSONValue]
    public var apns: [String: JSONValue]
    public var android: [String: JSONValue]
    /// The whole message object, as FCM's backend validates it.
    public var fields: [String: JSONValue]
    /// The members of the send request beside `message` (such as `validate_only`); empty for a bare message.
    public var requestFields: [String: JSONValue]
    /// The request wraps the message as the v1 send request does: `{"message": {...}}`.
    public var isWrapped = false
    /// The request is in the shape of the legacy HTTP API (`fcm/send`: `to`, `registration_ids`), shut down in 2024.
    public var isLegacy = false
    /// `apns.payload.aps` as the sender wrote it (before `notification` fills its alert), read once.
    public var writtenAps = Aps(nil)
    /// The targets the message names (`token`, `topic`, `condition`, `fid`), in that order; FCM wants exactly one.
    public var targets: [String] = []

    /// The v1 API's targets: a registration token, a topic, a condition, or a Firebase installation ID.
    static let targetFields = ["token", "topic", "condition", "fid"]

    /// Recognises `{"message": {...}}`, a bare message that has FCM's own fields and no `aps`, or a legacy request.
    package init?(root: [String: JSONValue]) {
        let message: [String: JSONValue]
        if let wrapped = root["message"]?.objectValue {
            message = wrapped
            requestFields = root.filter { $0.key != "message" }
            isWrapped = true
        } else if root["aps"] == nil, !Set(root.keys).isDisjoint(with: Self.legacyFields) {
            message = root
            requestFields = [:]
            isLegacy = true
        } else if root["aps"] == nil, !Set(root.keys).isDisjoint(with: Self.messageFields) {
            message = root
            requestFields = [:]
        } else {
            return nil
        }
        notification = message["notification"]?.objectValue ?? [:]
        data = message["data"]?.objectValue ?? [:]
        apns = message["apns"]?.objectValue ?? [:]
        android = message["android"]?.objectValue ?? [:]
        // FCM accepts `fcmOptions` as well as `fcm_options`; the resolution below reads the proto name.
        if apns["fcm_options"] == nil, let options = apns["fcmOptions"] { apns["fcm_options"] = options }
        fields = message
        writtenAps = Aps(apns["payload"]?["aps"])
        targets = Self.targetFields.filter { message[$0] != nil && message[$0] != .null }
    }

    private static let messageFields: Set<String> = [
        "token", "topic", "condition", "fid", "notification", "data", "android", "apns", "webpush",
    ]

    /// The legacy API's targets: a request with them was written for `fcm/send`.
    static let legacyFields: Set<String> = ["to", "registration_ids"]

    /// `apns.payload` as written, when the message gives one.
    var apnsPayload: JSONValue? {
        apns["payload"]
    }
}

/// Turns an FCM HTTP v1 message into the APNs payload iOS receives (Firebase: FCM HTTP v1 reference, "REST
/// Resource: projects.messages").
public enum FCMResolver {
    public static func resolveForIOS(_ message: FCMMessage) -> ReceivedPush {
        var diagnostics: [Diagnostic] = []
        let apnsPayload = message.apns["payload"]?.objectValue ?? [:]

        // `data` keys arrive beside `aps`; `apns.payload` custom keys override them.
        var userInfo = message.data
        for (key, value) in apnsPayload where key != "aps" {
            userInfo[key] = value
        }

        // `notification.title`/`body` form the alert; `apns.payload.aps.alert` overrides key by key.
        var aps = apnsPayload["aps"]?.objectValue ?? [:]
        var alert: [String: JSONValue] = [:]
        for key in ["title", "body"] {
            if let value = message.notification[key] { alert[key] = value }
        }
        switch aps["alert"] {
        case .object(let overrides)?:
            alert.merge(overrides) { _, override in override }
        case .string(let body)?:
            alert["body"] = .string(body)
        default:
            break
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        // An `aps` the sender wrote is kept even when empty (FCM refuses it; resolve shows it as written).
        if apnsPayload["aps"] != nil || !aps.isEmpty || !message.notification.isEmpty { userInfo["aps"] = .object(aps) }

        // `apns.fcm_options.image` wins over `notification.image`.
        var fcmOptions = userInfo["fcm_options"]?.objectValue ?? [:]
        if let image = message.apns["fcm_options"]?["image"] {
            fcmOptions["image"] = image
        } else if let image = message.notification["image"] {
            fcmOptions["image"] = image
            // A legacy request is refused whole (`fcm.legacy-api`): how v1 would resolve it is moot.
            if !message.isLegacy {
                diagnostics.append(.warning(
                    .fcmInferredImage,
                    "Assumed that FCM copies `notification.image` into `fcm_options.image` for iOS: this is inferred, not documented. Set `apns.fcm_options.image` to be sure the iPhone gets the image."))
            }
        }
        if !fcmOptions.isEmpty { userInfo["fcm_options"] = .object(fcmOptions) }

        let bytes = CompactJSON.payloadBytes(of: .object(userInfo), writtenAs: nil)
        return ReceivedPush(
            kind: .fcmV1, userInfo: userInfo, payloadBytes: bytes, diagnostics: diagnostics,
            headers: message.apns["headers"]?.objectValue, fcmMessage: message)
    }
}
