import Foundation

/// The process's peak resident memory, from Linux's /proc: reset the peak, run, read how far it rose.
enum MemoryGauge {
    /// Resets the peak (VmHWM) to the current resident size and returns that size; nil where unsupported.
    static func resetPeak() -> Int? {
        // Writing 5 to clear_refs resets the peak RSS counter (Linux 4.0 and later).
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return nil }
        defer { try? handle.close() }
        guard (try? handle.write(contentsOf: Data("5".utf8))) != nil else { return nil }
        return field("VmRSS")
    }

    /// How much the peak rose above `baseline` bytes.
    static func growth(since baseline: Int) -> Int? {
        field("VmHWM").map { max(0, $0 - baseline) }
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
