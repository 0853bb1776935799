/// What an Android device receives from an FCM HTTP v1 message.
public struct AndroidMessage: Sendable, Hashable, Codable {
    /// The map `RemoteMessage.getData()` returns: `data`, with `android.data` overriding it key by key.
    public var data: [String: JSONValue]
    /// The notification the system tray shows, under FCM's field names (`title`, `body`, `image`, `channel_id`...):
    /// `notification`, with `android.notification` overriding it field by field. Nil for a data-only message.
    public var notification: [String: JSONValue]?

    /// The image the notification shows: `android.notification.image`, else `notification.image`.
    public var image: String? {
        notification?["image"]?.stringValue
    }
}

extension FCMResolver {
    /// Resolves the Android side of a message (Firebase: FCM HTTP v1 reference, "REST Resource:
    /// projects.messages"): platform blocks override the common fields key by key (`url` survives from `data`).
    public static func resolveForAndroid(_ message: FCMMessage) -> AndroidMessage {
        var data = message.data
        if let overrides = FCMFieldNames.member("data", of: message.android)?.objectValue {
            data.merge(overrides) { _, override in override }
        }
        var notification = message.notification
        if let overrides = FCMFieldNames.member("notification", of: message.android)?.objectValue {
            for (key, value) in overrides {
                // `channelId` and `channel_id` are the same field to FCM: report it under the proto name.
                notification[protoName(key)] = value
            }
        }
        return AndroidMessage(data: data, notification: notification.isEmpty ? nil : notification)
    }

    private static func protoName(_ key: String) -> String {
        guard key.contains(where: \.isUppercase) else { return key }
        return key.reduce(into: "") { name, character in
            if character.isUppercase {
                name += "_" + character.lowercased()
            } else {
                name.append(character)
            }
        }
    }
}
