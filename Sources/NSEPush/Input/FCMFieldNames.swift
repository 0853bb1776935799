/// FCM's send API reads JSON through protobuf, which accepts each field under its proto name (`fcm_options`)
/// and its lowerCamelCase JSON name (`fcmOptions`).
enum FCMFieldNames {
    /// `click_action` -> `clickAction`.
    static func camelCase(_ name: String) -> String {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return name }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The value of `name` in `object`, under either spelling (the proto name wins when both are given).
    static func member(_ name: String, of object: [String: JSONValue]) -> JSONValue? {
        object[name] ?? object[camelCase(name)]
    }

    /// The proto name for `key`, which may be spelled either way; nil when `key` names no field in `known`.
    static func protoName(_ key: String, in known: Set<String>) -> String? {
        if known.contains(key) { return key }
        return known.first { camelCase($0) == key }
    }
}
