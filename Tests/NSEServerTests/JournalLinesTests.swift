import Foundation
@testable import NSEServer
import Synchronization
import Testing

/// The journal's lines as the server writes and reads them back: a delivery's line is written without an fsync of its
/// own, and what runs once a line is on disk (the events stream's publishing) still runs for every line, in file
/// order; a line read back is cut at its `request` or `delivery` marker wherever it is.
@Suite(.timeLimit(.minutes(10)))
struct JournalLinesTests {
    @Test
    func unsyncedLinesAreOnDiskInFileOrderWithTheSyncedOnes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try Journal(directory: folder)
        let published = Positions()
        let count = 600
        // Pushes (synced) and deliveries (not) from many tasks at once, as the server's requests and workers append.
        let returned = try await withThrowingTaskGroup(of: (Int, Int64).self) { group in
            for number in 0..<count {
                group.addTask {
                    let line = Data(#"{"n":\#(number)}"#.utf8)
                    let position = try await journal.append(line, synced: number % 3 == 0) { position in
                        published.add(position)
                    }
                    return (number, position)
                }
            }
            var positions: [Int: Int64] = [:]
            for try await (number, position) in group { positions[number] = position }
            return positions
        }
        // Every append has returned; the last unsynced lines are fsync'd and published once the writer has nothing left.
        while published.all.count < count { await Task.yield() }
        let order = published.all
        #expect(order == order.sorted(), "published out of file order")
        #expect(Set(order) == Set(returned.values))
        for (number, position) in returned {
            #expect(journal.readLine(at: position) == Data(#"{"n":\#(number)}"#.utf8))
        }
    }

    final class Positions: Sendable {
        private let positions = Mutex<[Int64]>([])
        func add(_ position: Int64) { positions.withLock { $0.append(position) } }
        var all: [Int64] { positions.withLock { $0 } }
    }

    @Test(arguments: [
        (#"{"type":"push","seq":1,"request":{"a":1}}"#, #","request":"#),
        (#","request":{"b":2}}"#, #","request":"#),
        (#"{"x":",\"request\":","request":{}}"#, #","request":"#),
        (#"{"type":"delivery","seq":2,"push":9,"delivery":{}}"#, #","delivery":"#),
        (#"{"type":"push","seq":1}"#, #","request":"#),
        (#",,,"reques"#, #","request":"#),
        ("", #","request":"#),
    ])
    func aMarkerIsFoundWhereFoundationFindsIt(line: String, marker: String) {
        let needle = Data(marker.utf8)
        // Also inside a larger buffer (a slice whose indices do not start at 0, as lines read in pages are).
        for prefix in ["", "0123456789"] {
            let whole = Data((prefix + line).utf8)
            let slice = whole[whole.index(whole.startIndex, offsetBy: prefix.utf8.count)...]
            #expect(NotificationRecord.firstRange(of: needle, in: slice) == slice.firstRange(of: needle), "\(prefix + line)")
        }
    }
}
