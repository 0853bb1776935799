import Foundation
@testable import NSEKit
import Testing

/// A batch grows the kernel's descriptor table once, ahead, instead of the kernel doubling it (an RCU grace
/// period each time, every thread's open and socket calls waiting) while its pushes start.
struct DescriptorTableTests {
    /// The slots of this process's descriptor table (`FDSize` in /proc/self/status).
    private func tableSlots() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("FDSize:") })
        return try #require(Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces)))
    }

    private func limits() -> rlimit {
        var limit = rlimit()
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return limit
    }

    @Test func theTableHasRoomForWhatIsAskedBeforeAnyDescriptorIsOpened() throws {
        let before = try tableSlots()
        let hard = Int(clamping: limits().rlim_max)
        try #require(hard > before, "the hard descriptor limit (\(hard)) leaves this table (\(before) slots) no room to grow")
        let wanted = min(before * 2, hard)

        DescriptorTable.prepare(for: wanted)

        #expect(try tableSlots() >= wanted)
        let after = limits()
        #expect(after.rlim_cur == after.rlim_max)
    }
}
