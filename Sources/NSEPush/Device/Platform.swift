/// Which devices a command looks at: an FCM message reaches both kinds, an APNs payload only iOS.
public enum Platform: String, Sendable, Codable, CaseIterable {
    case ios, android, both

    public var includesIOS: Bool { self != .android }
    public var includesAndroid: Bool { self != .ios }
}
