import Foundation
import NSEPipeline
import NSEPush
import os

/// How the framework stand-ins (`os`, `UIKit`, `Intents`, the extension's container, the notification center)
/// reach the harness run they belong to: the one place that calls the run's recording API for them.
package enum StandInRun {
    /// The run of the calling thread; nil outside a harness run (a unit test calling UIKit directly).
    package static var environment: ExtensionEnvironment? { ExtensionEnvironment.current }

    /// Sends `Logger` and `os_log` lines to the run of the thread that logs them; done once, before the
    /// first extension is made.
    package static let installLogSink: Void = OSLogSink.install { record in
        log(ExtensionLogLine.Level(rawValue: record.level) ?? .default, record.message, source: record.source,
            subsystem: record.subsystem.isEmpty ? nil : record.subsystem, category: record.category.isEmpty ? nil : record.category)
    }

    /// A line the extension logged, as its developer reads it in Xcode's console.
    package static func log(_ level: ExtensionLogLine.Level, _ message: String, source: String, subsystem: String? = nil, category: String? = nil) {
        environment?.log(level, message, source: source, subsystem: subsystem, category: category)
    }

    /// Charges `bytes` of decoded bitmap (or other memory the extension holds) to the run; the returned token
    /// gives them back when its owner is freed.
    package static func chargeMemory(_ bytes: Int) -> MemoryCharge? {
        guard let environment else { return nil }
        environment.chargeMemory(bytes: bytes)
        return MemoryCharge(environment: environment, bytes: bytes)
    }

    /// The run's app-group container (one folder, whatever the group's identifier).
    package static var containerDirectory: URL? { environment?.containerDirectory }

    package static func record(_ diagnostic: Diagnostic) {
        environment?.record(diagnostic)
    }
}

/// Memory charged to a run, given back once (when the bitmap that holds it is freed).
package final class MemoryCharge: Sendable {
    private let environment: ExtensionEnvironment
    private let bytes: Int

    init(environment: ExtensionEnvironment, bytes: Int) {
        self.environment = environment
        self.bytes = bytes
    }

    deinit {
        environment.releaseMemory(bytes: bytes)
    }
}
