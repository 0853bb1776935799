import Foundation
import Synchronization

/// One line logged through `Logger` or `os_log`.
package struct OSLogRecord: Sendable {
    /// "Logger" or "os_log".
    package var source: String
    /// The unified log's level name: debug, info, default, error, fault.
    package var level: String
    package var subsystem: String
    package var category: String
    /// Every value shown, as Xcode's console shows it while debugging (privacy applies outside a debugger
    /// only; the run's log is the developer's).
    package var message: String
}

/// Where log lines go: `os` depends on nothing (see Package.swift), so the harness's side (UserNotifications)
/// installs the receiver before an extension runs. Lines logged before that are dropped, as nothing reads them.
package enum OSLogSink {
    private static let receiver = Mutex<(@Sendable (OSLogRecord) -> Void)?>(nil)

    package static func install(_ receiver: @escaping @Sendable (OSLogRecord) -> Void) {
        Self.receiver.withLock { $0 = receiver }
    }

    static func write(_ record: OSLogRecord) {
        receiver.withLock { $0 }?(record)
    }
}
