import Foundation
import NSEKit

// INTERIM, until the run's recording API lands from branch `extnet`: a side table so the stand-ins compile
// and can be tested. Replaced by ExtensionEnvironment's own log / memory records on merge.

package struct ExtensionLogLine: Sendable, Equatable {
    package var level: String
    package var subsystem: String
    package var category: String
    package var message: String
    package var redacted: String
}

private struct InterimRecord {
    var log: [ExtensionLogLine] = []
    var memory = 0
    var peak = 0
}

// `interimLock` guards `interimRecords`.
private let interimLock = NSLock()
nonisolated(unsafe) private var interimRecords: [ObjectIdentifier: InterimRecord] = [:]

extension ExtensionEnvironment {
    package func recordLog(_ line: ExtensionLogLine) {
        interimLock.withLock { interimRecords[ObjectIdentifier(self), default: InterimRecord()].log.append(line) }
    }

    package func chargeMemory(_ bytes: Int, for what: String) {
        interimLock.withLock {
            var record = interimRecords[ObjectIdentifier(self), default: InterimRecord()]
            record.memory += bytes
            record.peak = max(record.peak, record.memory)
            interimRecords[ObjectIdentifier(self)] = record
        }
    }

    package func releaseMemory(_ bytes: Int) {
        interimLock.withLock { interimRecords[ObjectIdentifier(self), default: InterimRecord()].memory -= bytes }
    }

    package var logLines: [ExtensionLogLine] { interimLock.withLock { interimRecords[ObjectIdentifier(self)]?.log ?? [] } }
    package var chargedPeak: Int { interimLock.withLock { interimRecords[ObjectIdentifier(self)]?.peak ?? 0 } }
}
