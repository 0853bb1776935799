import Foundation
@testable import NSEServer
import Testing

/// A restart reads the journal from its checkpoint on (`<data>/journal.checkpoint`), not from its beginning, and
/// serves the same history; a checkpoint it cannot trust is not used (the whole journal is read, the same history
/// served); a crash after a journal append and before the next checkpoint loses nothing.
@Suite(.timeLimit(.minutes(10)))
struct JournalCheckpointTests {
    /// What a client reads of the history: each device's notifications (newest first, complete JSON), a push found
    /// by its apns-id, the devices.
    static func history(_ fixture: ServeFixture, ids: [String] = []) async throws -> NSDictionary {
        var seen: [String: Any] = [:]
        for token in [ServeFixture.token, ServeFixture.productionToken, ServeFixture.androidToken] {
            seen[token] = try await fixture.notifications(token)
        }
        for id in ids {
            seen[id] = try await curl([fixture.base + "/emulator/v1/messages/\(id)"]).json?["notifications"] ?? []
        }
        seen["devices"] = try await curl([fixture.base + "/emulator/v1/devices"]).json?["devices"] ?? []
        return NSDictionary(dictionary: seen)
    }

    static func journalLines(_ data: URL) throws -> Int {
        try Data(contentsOf: data.appendingPathComponent(Journal.fileName)).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    static func apnsID(_ number: Int) -> String {
        String(format: "123E4567-E89B-12D3-A456-%012d", number)
    }

    /// Sends `count` pushes spread over the two iPhones, each with its own apns-id, and waits until all are delivered.
    static func send(_ fixture: ServeFixture, _ numbers: Range<Int>) async throws {
        for number in numbers {
            let token = number % 3 == 0 ? ServeFixture.productionToken : ServeFixture.token
            #expect(try await apns(fixture, token: token, headers: ["apns-id": apnsID(number)]).status == 200)
        }
        _ = try await fixture.notifications(ServeFixture.token)
        _ = try await fixture.notifications(ServeFixture.productionToken)
    }

    /// A data folder with `count` pushes delivered, the server stopped (its checkpoint written).
    static func folder(pushes count: Int) async throws -> (data: URL, history: NSDictionary) {
        let first = try await ServeFixture.start()
        try await send(first, 0..<count)
        let history = try await Self.history(first, ids: (0..<count).map(apnsID))
        await first.stop(keepingData: true)
        return (first.data, history)
    }

    /// A restart after a clean stop reads no journal line; after more pushes and a crash before the next checkpoint
    /// (the checkpoint the first stop wrote put back, as if the second server never wrote one), it reads exactly the
    /// lines the second server wrote, and serves the whole history, numbering going on.
    @Test func aRestartReadsOnlyTheJournalAfterTheCheckpoint() async throws {
        let (data, before) = try await Self.folder(pushes: 6)
        let checkpoint = data.appendingPathComponent(JournalCheckpoint.fileName)
        let saved = try Data(contentsOf: checkpoint)
        let linesAtCheckpoint = try Self.journalLines(data)

        let second = try await ServeFixture.start(data: data)
        #expect(second.server.startedFromCheckpoint)
        #expect(second.server.readJournalLines == 0)
        #expect(try await Self.history(second, ids: (0..<6).map(Self.apnsID)) == before)
        try await Self.send(second, 6..<10)
        // Numbering goes on from the checkpoint's: the tenth push (to Carl's iPhone) is seq 10.
        #expect(try await second.notifications(ServeFixture.productionToken).first?["seq"] as? Int == 10)
        let after = try await Self.history(second, ids: (0..<10).map(Self.apnsID))
        await second.stop(keepingData: true)
        try saved.write(to: checkpoint)

        let third = try await ServeFixture.start(data: data)
        defer { Task { await third.stop() } }
        #expect(third.server.startedFromCheckpoint)
        #expect(third.server.readJournalLines == (try Self.journalLines(data)) - linesAtCheckpoint)
        #expect(third.server.readJournalLines >= 8)
        #expect(try await Self.history(third, ids: (0..<10).map(Self.apnsID)) == after)
        #expect(try await apns(third).status == 200)
        #expect(try await third.notifications().first?["seq"] as? Int == 11)
    }

    enum Damage: String, CaseIterable, Sendable {
        /// A byte of the checkpoint changed: its checksum no longer holds.
        case checkpointByteChanged
        /// The checkpoint cut short, as a write that did not end would leave it (were it not renamed into place).
        case checkpointCutShort
        /// The journal shorter than the checkpoint's position (a restored copy, or its last lines cut).
        case journalCutBeforeTheCheckpoint
        /// The journal's bytes before the position changed (another journal of the same length).
        case journalRewritten
        /// The index shorter than when the checkpoint was written.
        case indexCut
        /// The index deleted.
        case indexDeleted
        /// The journal cleared and written again since the checkpoint (an old checkpoint put back).
        case journalClearedSince
        /// The devices file gives other devices than the state the checkpoint kept was built on.
        case devicesFileChanged
        /// Numbers no server writes (a negative base, a position at Int64's end), the checksum made to hold: the
        /// arithmetic on them must not trap.
        case numbersOutOfRange
    }

    /// A checkpoint that cannot be trusted is not used: the start reads every journal line and serves what a start
    /// without a checkpoint serves (a copy of the folder without it).
    @Test(arguments: Damage.allCases)
    func aCheckpointThatCannotBeTrustedIsNotUsed(_ damage: Damage) async throws {
        let (data, _) = try await Self.folder(pushes: 4)
        let journal = data.appendingPathComponent(Journal.fileName)
        let checkpoint = data.appendingPathComponent(JournalCheckpoint.fileName)
        let index = data.appendingPathComponent(HistoryIndex.fileName)
        var devices = ServeFixture.devicesJSON
        switch damage {
        case .checkpointByteChanged:
            var bytes = try Data(contentsOf: checkpoint)
            let at = try #require(bytes.firstRange(of: Data(#""nextSeq":"#.utf8))).upperBound
            bytes[at] = bytes[at] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
            try bytes.write(to: checkpoint)
        case .checkpointCutShort:
            let bytes = try Data(contentsOf: checkpoint)
            try bytes.prefix(bytes.count / 2).write(to: checkpoint)
        case .journalCutBeforeTheCheckpoint:
            let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n")
            try Data((lines.dropLast(2).joined(separator: "\n") + "\n").utf8).write(to: journal)
        case .journalRewritten:
            var text = try String(contentsOf: journal, encoding: .utf8)
            text = text.replacingOccurrences(of: "Arrives Tuesday", with: "Arrives Fridays")
            try Data(text.utf8).write(to: journal)
        case .indexCut:
            let handle = try FileHandle(forWritingTo: index)
            try handle.truncate(atOffset: UInt64(HistoryIndex.entrySize))
            try handle.close()
        case .indexDeleted:
            try FileManager.default.removeItem(at: index)
        case .numbersOutOfRange:
            var saved = try #require(JournalCheckpoint.read(in: data).checkpoint)
            saved.base = -(1 << 62)
            saved.position = Int64.max - 1
            saved.skipped = Int.max
            #expect(saved.writeTemporary(in: data))
            JournalCheckpoint.commit(in: data)
        case .journalClearedSince:
            let saved = try Data(contentsOf: checkpoint)
            let again = try await ServeFixture.start(data: data)
            #expect(try await curl(["-X", "DELETE", again.base + "/emulator/v1/state"]).status == 204)
            try await Self.send(again, 20..<27)
            await again.stop(keepingData: true)
            try saved.write(to: checkpoint)
        case .devicesFileChanged:
            devices = devices.replacingOccurrences(of: "Carl's iPhone", with: "Carla's iPhone")
        }
        // What a start without any checkpoint serves, on a copy of the folder.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-test-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: data, to: copy)
        try FileManager.default.removeItem(at: copy.appendingPathComponent(JournalCheckpoint.fileName))
        let plain = try await ServeFixture.start(devices: devices, data: copy)
        let expected = try await Self.history(plain, ids: (0..<4).map(Self.apnsID))
        let allLines = plain.server.readJournalLines
        await plain.stop(keepingData: true)

        let damaged = try await ServeFixture.start(devices: devices, data: data)
        defer { Task { await damaged.stop() } }
        #expect(!damaged.server.startedFromCheckpoint)
        #expect(damaged.server.checkpointRejected != nil)
        #expect(damaged.server.readJournalLines == allLines)
        #expect(try await Self.history(damaged, ids: (0..<4).map(Self.apnsID)) == expected)
    }

    /// A checkpoint taken while appends were still returning holds changes of lines after its position (a push
    /// linked into its device's chain, delivered): reading those lines again at the start changes nothing more.
    @Test func linesAfterTheCheckpointWhoseChangeItHoldsAreReadAgainHarmlessly() async throws {
        let (data, before) = try await Self.folder(pushes: 5)
        // The same state, said to be the journal's up to its third line only: the pushes after it are read again.
        try Self.rewriteCheckpoint(data) { checkpoint, journal in
            let third = try #require(journal.enumerated().filter { $0.element == 0x0A }.dropFirst(2).first?.offset)
            checkpoint.position = checkpoint.base + Int64(third + 1)
        }
        let second = try await ServeFixture.start(data: data)
        defer { Task { await second.stop() } }
        #expect(second.server.startedFromCheckpoint)
        #expect(second.server.readJournalLines == (try Self.journalLines(data)) - 3)
        #expect(try await Self.history(second, ids: (0..<5).map(Self.apnsID)) == before)
    }

    /// A push journaled before the checkpoint whose delivery never was (the server stopped mid-pipeline) is pending
    /// after a restart from the checkpoint, found in the index, and runs through the pipeline again.
    @Test func aPushPendingAtTheCheckpointIsDeliveredAfterARestart() async throws {
        let (data, _) = try await Self.folder(pushes: 1)
        let journal = data.appendingPathComponent(Journal.fileName)
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.last?.contains(#""type":"delivery""#) == true)
        try Data((lines.dropLast().joined(separator: "\n") + "\n").utf8).write(to: journal)
        // Its index entry without the delivery, as when the delivery's write never came.
        let index = try FileHandle(forUpdating: data.appendingPathComponent(HistoryIndex.fileName))
        try index.seek(toOffset: 8)
        try index.write(contentsOf: Data(count: 8))
        try index.close()
        try Self.rewriteCheckpoint(data) { checkpoint, journal in
            checkpoint.position = checkpoint.base + Int64(journal.count)
        }
        let second = try await ServeFixture.start(data: data)
        defer { Task { await second.stop() } }
        #expect(second.server.startedFromCheckpoint)
        #expect(second.server.readJournalLines == 0)
        let after = try await second.notifications(ServeFixture.productionToken)
        #expect(after.compactMap { $0["status"] as? String } == ["delivered"])
    }

    /// Pushes journaled after a clear are read back by a start without a checkpoint too: a line's position counts
    /// the bytes the clear emptied, as the index's entries do.
    @Test func aFullReadAfterAClearServesThePushesAfterIt() async throws {
        let first = try await ServeFixture.start()
        try await Self.send(first, 0..<2)
        #expect(try await curl(["-X", "DELETE", first.base + "/emulator/v1/state"]).status == 204)
        try await Self.send(first, 2..<5)
        let before = try await Self.history(first, ids: (0..<5).map(Self.apnsID))
        await first.stop(keepingData: true)
        try FileManager.default.removeItem(at: first.data.appendingPathComponent(JournalCheckpoint.fileName))
        let second = try await ServeFixture.start(data: first.data)
        defer { Task { await second.stop() } }
        #expect(!second.server.startedFromCheckpoint)
        #expect(try await Self.history(second, ids: (0..<5).map(Self.apnsID)) == before)
        #expect(try await second.notifications().count == 2)
    }

    /// Replaces the data folder's checkpoint with `change` of it (given the journal's bytes), its fingerprint and
    /// checksum made again: a checkpoint the server could have written.
    static func rewriteCheckpoint(_ data: URL, _ change: (inout JournalCheckpoint, Data) throws -> Void) throws {
        let (read, unreadable) = JournalCheckpoint.read(in: data)
        var checkpoint = try #require(read, "\(unreadable ?? "no checkpoint")")
        let journalURL = data.appendingPathComponent(Journal.fileName)
        try change(&checkpoint, try Data(contentsOf: journalURL))
        let fd = open(journalURL.path, O_RDONLY)
        defer { close(fd) }
        checkpoint.journalTail = JournalCheckpoint.hex(try #require(Journal.fingerprint(descriptor: fd, before: checkpoint.position - checkpoint.base)))
        #expect(checkpoint.writeTemporary(in: data))
        JournalCheckpoint.commit(in: data)
    }

}
