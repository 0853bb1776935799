import Foundation
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEReports
import Testing

/// A batch grows the kernel's descriptor table once, ahead, instead of the kernel doubling it (an RCU grace
/// period each time, every thread's open and socket calls waiting) while its pushes start.
struct DescriptorTableTests {
    /// The slots of this process's descriptor table (`FDSize` in /proc/self/status).
    private static func tableSlots() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("FDSize:") }) else { return nil }
        return Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces))
    }

    private static func limits() -> rlimit {
        var limit = rlimit()
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return limit
    }

    /// A machine whose hard limit is below the table this test process already has cannot show a growth.
    static var tableCanGrow: Bool {
        guard let slots = tableSlots() else { return false }
        return Int(clamping: limits().rlim_max) > slots
    }

    @Test(.enabled(if: tableCanGrow, "the hard descriptor limit leaves this process's table no room to grow"))
    func theTableHasRoomForWhatIsAskedBeforeAnyDescriptorIsOpened() throws {
        let before = try #require(Self.tableSlots())
        let hard = Int(clamping: Self.limits().rlim_max)
        let wanted = min(before * 2, hard)

        DescriptorTable.prepare(for: wanted)

        #expect(try #require(Self.tableSlots()) >= wanted)
        let after = Self.limits()
        #expect(after.rlim_cur == after.rlim_max)
    }
}
