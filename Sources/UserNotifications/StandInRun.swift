import Foundation
import NSEKit
import os

/// How the framework stand-ins (`os`, `UIKit`, `Intents`, the extension's container, the notification center)
/// reach the harness run they belong to: the one place that knows the run's recording API.
package enum StandInRun {
    /// The run of the calling thread; nil outside a harness run (a unit test calling UIKit directly).
    package static var environment: ExtensionEnvironment? { ExtensionEnvironment.current }

    /// Sends `Logger` and `os_log` lines to the run of the thread that logs them; done once, before the
    /// first extension is made.
    package static let installLogSink: Void = OSLogSink.install { record in
        log(level: record.level, subsystem: record.subsystem, category: record.category, message: record.message, redacted: record.redacted)
    }

    /// A line the extension logged (`Logger`, `os_log`, `NSLog`-style), as its developer reads it.
    package static func log(level: String, subsystem: String, category: String, message: String, redacted: String) {
        environment?.recordLog(ExtensionLogLine(level: level, subsystem: subsystem, category: category, message: message, redacted: redacted))
    }

    /// Charges `bytes` of decoded bitmap (or other memory the extension holds) to the run; the returned token
    /// gives them back when its owner is freed.
    package static func chargeMemory(_ bytes: Int, for what: String) -> MemoryCharge? {
        guard let environment else { return nil }
        environment.chargeMemory(bytes, for: what)
        return MemoryCharge(environment: environment, bytes: bytes)
    }

    /// The run's copy of an app group's shared container, made (and seeded) on first use.
    package static func containerDirectory(appGroup: String) -> URL? {
        guard let environment else { return nil }
        // The identifier becomes one path component: anything but letters, digits, '.', '-' and '_' is replaced.
        let safe = String(appGroup.map { $0.isLetter || $0.isNumber || "-_".contains($0) || $0 == "." ? $0 : "_" })
        let name = safe.isEmpty || safe.allSatisfy({ $0 == "." }) ? "_" : safe
        let folder = environment.context.workDirectory.appendingPathComponent("AppGroup-\(name)", isDirectory: true)
        let manager = FileManager.default
        if !manager.fileExists(atPath: folder.path) {
            if let seed = environment.context.profile.appGroupContainers[appGroup] {
                try? manager.copyItem(at: seed, to: folder)
            }
            try? manager.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return folder
    }

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
        environment.releaseMemory(bytes)
    }
}
