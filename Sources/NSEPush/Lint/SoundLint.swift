/// `aps.sound`: a sound file's name ("default" for the system sound), or for critical alerts
/// {"critical": 1, "name": "...", "volume": 0...1}.
enum SoundLint {
    static func check(_ sound: JSONValue, path: String) -> [Diagnostic] {
        let fields: [String: JSONValue]
        switch sound {
        case .string:
            return []
        case .object(let object):
            fields = object
        default:
            return [.error(.lintApsSoundType, "`\(path)` is \(sound.shortDescription): iOS plays a sound only for a string (a file name, or \"default\") or a critical-alert dictionary, so the notification is silent. Send \"default\" or {\"critical\": 1, \"name\": \"default\", \"volume\": 1.0}.")]
        }
        var findings: [Diagnostic] = []
        for key in fields.keys.sorted() where !["critical", "name", "volume"].contains(key) {
            findings.append(.warning(.lintApsSoundType, "`\(path).\(key)` is not a sound key Apple defines (critical, name, volume); iOS ignores it."))
        }
        switch fields["name"] {
        case .string?:
            break
        case nil:
            findings.append(.error(.lintApsSoundType, "`\(path)` has no `name`: the sound dictionary needs the file's name (or \"default\"), so the notification is silent. Add \"name\": \"default\"."))
        case let other?:
            findings.append(.error(.lintApsSoundType, "`\(path).name` is \(other.shortDescription), not a string: the notification is silent. Send the sound file's name or \"default\"."))
        }
        if let critical = fields["critical"], critical != .int(0), critical != .int(1) {
            findings.append(.error(.lintApsSoundType, "`\(path).critical` is \(critical.shortDescription): Apple documents 1 (a critical alert, which needs Apple's entitlement) or 0. Send 1 or 0."))
        }
        if let volume = fields["volume"] {
            if let level = volume.doubleValue {
                if !(0...1).contains(level) {
                    findings.append(.error(.lintApsSoundVolume, "`\(path).volume` is \(volume.shortDescription); the critical alert's volume runs from 0 (silent) to 1 (full). Send a number in 0...1."))
                }
            } else {
                findings.append(.error(.lintApsSoundVolume, "`\(path).volume` is \(volume.shortDescription), not a number: iOS ignores it. Send a number from 0 to 1."))
            }
        }
        return findings
    }
}
