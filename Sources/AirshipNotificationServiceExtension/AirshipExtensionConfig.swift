import Foundation
import os

/// The extension's configuration, returned by `UANotificationServiceExtension.airshipConfig` (Airship 19+).
public struct AirshipExtensionConfig: Sendable {
    /// The most detailed level logged; nil logs nothing. Airship's default is `.error`.
    public var logLevel: AirshipExtensionLogLevel?
    /// Where lines go; nil logs nothing.
    public var logHandler: (any AirshipExtensionLogHandler)?

    public init(logLevel: AirshipExtensionLogLevel? = .error, logHandler: (any AirshipExtensionLogHandler)? = .defaultLogger) {
        self.logLevel = logLevel
        self.logHandler = logHandler
    }
}

/// Airship's extension log levels, most severe first.
public enum AirshipExtensionLogLevel: String, Sendable, Decodable {
    case error, warn, info, debug, verbose

    var rank: Int {
        switch self {
        case .error: 1
        case .warn: 2
        case .info: 3
        case .debug: 4
        case .verbose: 5
        }
    }

    var initial: String {
        switch self {
        case .error: "E"
        case .warn: "W"
        case .info: "I"
        case .debug: "D"
        case .verbose: "V"
        }
    }

    var logType: OSLogType {
        switch self {
        case .error: .error
        case .warn: .default
        case .info: .info
        case .debug, .verbose: .debug
        }
    }
}

/// Receives the extension's log lines.
public protocol AirshipExtensionLogHandler: Sendable {
    func log(logLevel: AirshipExtensionLogLevel, message: String, fileID: String, line: UInt, function: String)
}

extension AirshipExtensionLogHandler where Self == DefaultAirshipExtensionLogHandler {
    /// Airship's default: the unified log, messages private.
    public static var defaultLogger: Self { .init(logPublic: false) }
    /// The unified log, messages public.
    public static var publicLogger: Self { .init(logPublic: true) }
}

/// Logs to the unified log (the `os` stand-in records each line on the run), category "AirshipNotificationExtension".
public final class DefaultAirshipExtensionLogHandler: AirshipExtensionLogHandler {
    private let logPublic: Bool
    private static let logger = Logger(subsystem: Bundle.main.bundleIdentifier ?? "", category: "AirshipNotificationExtension")

    init(logPublic: Bool) {
        self.logPublic = logPublic
    }

    public func log(logLevel: AirshipExtensionLogLevel, message: String, fileID: String, line: UInt, function: String) {
        let text = "[\(logLevel.initial)] \(fileID) \(function) [Line \(line)] \(message)"
        if logPublic {
            Self.logger.notice("\(text, privacy: .public)")
        } else {
            Self.logger.log(level: logLevel.logType, "\(text, privacy: .private)")
        }
    }
}

/// Filters lines by the configured level and hands them to the configured handler.
struct AirshipExtensionLogger: Sendable {
    let config: AirshipExtensionConfig

    func log(_ level: AirshipExtensionLogLevel, _ message: @autoclosure () -> String, fileID: String = #fileID, line: UInt = #line, function: String = #function) {
        guard let handler = config.logHandler, let configured = config.logLevel, configured.rank >= level.rank else { return }
        handler.log(logLevel: level, message: message(), fileID: fileID, line: line, function: function)
    }
}
