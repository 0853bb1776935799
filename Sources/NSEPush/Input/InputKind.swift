/// What kind of file a push came from.
public enum InputKind: String, Sendable, Codable {
    /// The `userInfo` a device receives: a JSON object with `aps`.
    case apns
    /// An `xcrun simctl push` file: an APNs payload plus an optional "Simulator Target Bundle".
    case simctl
    /// An FCM HTTP v1 send request (`{"message": {...}}` or the bare message), resolved to what iOS receives.
    case fcmV1 = "fcm-v1"
}
