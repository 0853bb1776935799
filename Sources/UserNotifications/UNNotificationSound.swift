import Foundation

/// The name of a sound file in the app bundle.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }
}

/// A notification's sound: the default sound, a named file, or a critical alert sound.
open class UNNotificationSound: NSObject, NSCopying, @unchecked Sendable {
    /// The file name, or nil for the system's default sound.
    public let name: UNNotificationSoundName?
    public let isCritical: Bool
    /// 0...1, for critical sounds.
    public let volume: Float

    init(name: UNNotificationSoundName?, critical: Bool = false, volume: Float = 1) {
        self.name = name
        self.isCritical = critical
        self.volume = min(max(volume, 0), 1)
    }

    public convenience init(named name: UNNotificationSoundName) {
        self.init(name: name)
    }

    public class var `default`: UNNotificationSound { UNNotificationSound(name: nil) }
    public class var defaultCritical: UNNotificationSound { UNNotificationSound(name: nil, critical: true) }
    public class var defaultRingtone: UNNotificationSound { UNNotificationSound(name: "ringtone") }

    public class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: nil, critical: true, volume: volume)
    }

    public class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name, critical: true)
    }

    public class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: name, critical: true, volume: volume)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The name as an `aps.sound` string: "default" for the system sound.
    package var payloadName: String { name?.rawValue ?? "default" }
}

/// How urgently a notification interrupts: passive, active (the default), time-sensitive, critical.
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    case passive = 0
    case active = 1
    case timeSensitive = 2
    case critical = 3

    /// The `aps.interruption-level` spelling.
    package var payloadValue: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "time-sensitive"
        case .critical: "critical"
        }
    }

    package init(payloadValue: String) {
        switch payloadValue {
        case "passive": self = .passive
        case "time-sensitive": self = .timeSensitive
        case "critical": self = .critical
        default: self = .active
        }
    }
}
