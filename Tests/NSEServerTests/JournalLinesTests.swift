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
        let count = 20_000
        // Pushes (synced) and deliveries (not) from many tasks at once, as the server's requests and workers append:
        // a push now and then among many deliveries, so batches of deliveries alone are followed by batches with a push
        // before the writer is ever idle (the fsync then covers both, and the deliveries' `durable` must run first).
        let returned = try await withThrowingTaskGroup(of: (Int, Int64).self) { group in
            for number in 0..<count {
                group.addTask {
                    let line = Data(#"{"n":\#(number)}"#.utf8)
                    let position = try await journal.append(line, synced: number % 500 == 0) { position in
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
        let outOfOrder = order.indices.dropLast().first { order[$0] >= order[$0 + 1] }
        #expect(outOfOrder == nil, "published out of file order at \(outOfOrder.map { Array(order[$0...($0 + 1)]) } ?? [])")
        #expect(Set(order) == Set(returned.values))
        for (number, position) in returned {
            #expect(journal.readLine(at: position) == Data(#"{"n":\#(number)}"#.utf8))
        }
    }

    /// At a start from a checkpoint, a push whose delivery's line is not in the journal any more (a crash of the
    /// machine lost it; the index entry written after it was kept) is pending again, and runs again.
    @Test
    func aDeliveryLostWithTheJournalsTailIsPendingAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try HistoryIndex(directory: folder, firstSeq: 1)
        let end: Int64 = 10_000
        index.write(1, .init(push: (100, 50), delivery: (9_000, 999), previous: 0, idHash: 1))
        index.write(2, .init(push: (200, 50), delivery: (9_500, 600), previous: 1, idHash: 2))
        index.write(3, .init(push: (300, 50), delivery: nil, previous: 2, idHash: 3))
        index.write(4, .init(push: (400, 50), delivery: (10_000, 700), previous: 3, idHash: 4))
        #expect(index.pendingSeqs(deliveriesBefore: end) == [2, 3, 4])
        #expect(index.entry(1)?.delivery?.position == 9_000)
        #expect(index.entry(2)?.delivery == nil)
        #expect(index.entry(4)?.delivery == nil)
        #expect(index.entry(2)?.push?.position == 200)
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
