import Foundation

/// The journal alone, for `nse-bench --journal-appends`: how many push-sized records a second it makes durable
/// (written and fsync'd, in group commits) with `concurrency` appends waiting at once, as an HTTP/2 connection
/// with that many streams makes them.
public enum JournalBenchmark {
    public struct Figures: Sendable {
        public var appends: Int
        public var seconds: Double
        public var bytes: Int64
        public var appendsPerSecond: Double { Double(appends) / seconds }
    }

    public static func run(directory: URL, appends: Int, concurrency: Int, recordBytes: Int) async throws -> Figures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let journal = try Journal(directory: directory)
        let filler = String(repeating: "x", count: max(recordBytes - 64, 0))
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    var index = lane
                    while index < appends {
                        try await journal.append(Data(#"{"type":"push","seq":\#(index + 1),"request":{"body":"\#(filler)"}}"#.utf8))
                        index += concurrency
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Figures(appends: appends, seconds: seconds, bytes: journal.endPosition)
    }
}
