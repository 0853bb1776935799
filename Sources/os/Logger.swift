import Foundation

/// A log level of the unified log.
public struct OSLogType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let `default` = OSLogType(rawValue: 0x00)
    public static let info = OSLogType(rawValue: 0x01)
    public static let debug = OSLogType(rawValue: 0x02)
    public static let error = OSLogType(rawValue: 0x10)
    public static let fault = OSLogType(rawValue: 0x11)

    /// The name Console shows for the level.
    var name: String {
        switch self {
        case .info: "info"
        case .debug: "debug"
        case .error: "error"
        case .fault: "fault"
        default: "default"
        }
    }
}

/// A log handle: a subsystem and a category.
open class OSLog: NSObject, @unchecked Sendable {
    // Immutable after init.
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
        super.init()
    }

    public static let `default` = OSLog(subsystem: "", category: "")
    public static let disabled = OSLog(subsystem: "", category: "disabled")

    /// Everything is enabled except the disabled log.
    public func isEnabled(type: OSLogType) -> Bool { self !== OSLog.disabled }

    func write(_ type: OSLogType, source: String, message: String) {
        guard isEnabled(type: type) else { return }
        OSLogSink.write(OSLogRecord(source: source, level: type.name, subsystem: subsystem, category: category, message: message))
    }
}

/// `Logger` from `os` (iOS 14): every line goes to the run's log, which the result reports.
public struct Logger: @unchecked Sendable {
    // OSLog is immutable; Apple marks Logger Sendable too.
    let log: OSLog

    public init(subsystem: String, category: String) {
        log = OSLog(subsystem: subsystem, category: category)
    }

    public init(_ log: OSLog) {
        self.log = log
    }

    public init() {
        log = .default
    }

    public func log(_ message: OSLogMessage) { write(.default, message) }
    public func log(level: OSLogType, _ message: OSLogMessage) { write(level, message) }
    public func trace(_ message: OSLogMessage) { write(.debug, message) }
    public func debug(_ message: OSLogMessage) { write(.debug, message) }
    public func info(_ message: OSLogMessage) { write(.info, message) }
    public func notice(_ message: OSLogMessage) { write(.default, message) }
    public func warning(_ message: OSLogMessage) { write(.error, message) }
    public func error(_ message: OSLogMessage) { write(.error, message) }
    public func critical(_ message: OSLogMessage) { write(.fault, message) }
    public func fault(_ message: OSLogMessage) { write(.fault, message) }

    private func write(_ type: OSLogType, _ message: OSLogMessage) {
        log.write(type, source: "Logger", message: message.text)
    }
}

/// `os_log` with a printf-style format (`%{public}@`, `%d`, `%{private}s`).
public func os_log(_ message: StaticString, dso: UnsafeRawPointer? = #dsohandle, log: OSLog = .default, type: OSLogType = .default, _ args: CVarArg...) {
    log.write(type, source: "os_log", message: PrintfFormat.render(message.description, args))
}

/// `os_log` with an interpolated message (iOS 14).
public func os_log(_ type: OSLogType, dso: UnsafeRawPointer = #dsohandle, log: OSLog = .default, _ message: OSLogMessage) {
    log.write(type, source: "os_log", message: message.text)
}

/// The unified log's printf-style formats, rendered one argument at a time: privacy annotations are read
/// and dropped, and a format never reads an argument it was not given.
enum PrintfFormat {
    static func render(_ format: String, _ args: [CVarArg]) -> String {
        var text = ""
        var remaining = args[...]
        var index = format.startIndex
        while index < format.endIndex {
            let character = format[index]
            guard character == "%" else {
                text.append(character)
                index = format.index(after: index)
                continue
            }
            var cursor = format.index(after: index)
            if cursor < format.endIndex, format[cursor] == "%" {
                text += "%"
                index = format.index(after: cursor)
                continue
            }
            // `{public}`, `{private}`, `{private, mask.hash}`: the log's privacy annotation, not printed.
            if cursor < format.endIndex, format[cursor] == "{", let close = format[cursor...].firstIndex(of: "}") {
                cursor = format.index(after: close)
            }
            var spec = "%"
            while cursor < format.endIndex, !"diuoxXfFeEgGaAcsS@p".contains(format[cursor]) {
                spec.append(format[cursor])
                cursor = format.index(after: cursor)
            }
            guard cursor < format.endIndex else {
                text += spec
                break
            }
            let conversion = format[cursor]
            index = format.index(after: cursor)
            guard let argument = remaining.popFirst() else {
                text += "<missing argument>"
                continue
            }
            text += one(argument, spec: spec, conversion: conversion)
        }
        return text
    }

    /// One value: objects and strings through `description` (a Swift String passed for %s would be a crash
    /// waiting to happen on iOS too, but is shown here), numbers through Foundation's printf.
    private static func one(_ argument: CVarArg, spec: String, conversion: Character) -> String {
        if "@sS".contains(conversion) { return String(describing: argument) }
        // Length modifiers are replaced by one of our own; `*` would read an argument printf was never given.
        let lengthless = spec.filter { !"hlqLzjt*".contains($0) }
        switch argument {
        case let number as any BinaryInteger where conversion == "c":
            return UnicodeScalar(UInt8(truncatingIfNeeded: Int64(truncatingIfNeeded: number))).description
        case let number as Double where "fFeEgGaA".contains(conversion): return String(format: lengthless + String(conversion), number)
        case let number as Float where "fFeEgGaA".contains(conversion): return String(format: lengthless + String(conversion), Double(number))
        case let number as any BinaryInteger where "diuoxX".contains(conversion):
            return String(format: lengthless + "ll" + String(conversion), Int64(truncatingIfNeeded: number))
        default: return String(describing: argument)
        }
    }
}

/// For tests: how the stand-in renders a format and a message (package access, not Apple's API).
package enum PrintfFormatProbe {
    package static func render(_ format: String, _ args: [CVarArg]) -> String { PrintfFormat.render(format, args) }
}

package enum OSLogMessageProbe {
    package static func text(_ message: OSLogMessage) -> String { message.text }
}
