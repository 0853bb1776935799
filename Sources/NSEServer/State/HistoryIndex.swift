import Foundation

/// Where each push of the journal is, on disk beside it (`<data>/journal.index`): one fixed-size entry per
/// sequence number, so the history costs the server no memory however long it grows. An entry holds the
/// positions of the push's line and of its delivery's line, the sequence number of the same device's previous
/// push (a device's notifications are a chain read newest first), and a hash of its apns-id or message name
/// (a lookup by ID reads the entries, not the journal). The journal is the record; this index is written without
/// fsync and kept across restarts only with a checkpoint (`JournalCheckpoint`), which fsyncs it first and says up to
/// where in the journal it is whole; without one it is rebuilt from the journal. Touched only by `ServeState`, whose
/// isolation guards it.
final class HistoryIndex {
    static let fileName = "journal.index"
    static let entrySize = 48

    struct Entry: Equatable {
        /// The push line's journal position, and its length; nil while its write is under way or when it failed.
        var push: (position: Int64, length: Int)?
        /// The delivery line's; nil while the push is pending.
        var delivery: (position: Int64, length: Int)?
        /// The device's push before this one (0: none).
        var previous: Int
        var idHash: UInt64

        static func == (left: Entry, right: Entry) -> Bool {
            left.push?.position == right.push?.position && left.delivery?.position == right.delivery?.position
                && left.previous == right.previous && left.idHash == right.idHash
        }
    }

    let url: URL
    private let descriptor: Int32
    /// The sequence number of the first entry: a clear starts the index again at the next number.
    private(set) var firstSeq: Int

    /// Opens the index, emptied (`keepingEntries` false: it is rebuilt from the journal) or as a checkpoint left it.
    init(directory: URL, firstSeq: Int, keepingEntries: Bool = false) throws(ServeSetupError) {
        url = directory.appendingPathComponent(Self.fileName)
        let opened = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | (keepingEntries ? 0 : O_TRUNC), 0o644)
        guard opened >= 0 else {
            throw ServeSetupError("Cannot open the journal's index \(url.path): \(String(cString: strerror(errno))).")
        }
        descriptor = opened
        self.firstSeq = firstSeq
    }

    deinit {
        close(descriptor)
    }

    /// Forgets every entry; the next is `firstSeq`'s.
    func reset(firstSeq: Int) {
        self.firstSeq = firstSeq
        _ = ftruncate(descriptor, 0)
    }

    private func offset(of seq: Int) -> off_t? {
        guard seq >= firstSeq, seq - firstSeq < Int.max / Self.entrySize else { return nil }
        return off_t((seq - firstSeq) * Self.entrySize)
    }

    /// The entry of `seq`; nil when it has none (never written, before a clear, or the read failed).
    func entry(_ seq: Int) -> Entry? {
        guard let offset = offset(of: seq) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Self.entrySize)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Self.entrySize, offset) }
        guard count == Self.entrySize else { return nil }
        return Self.decode(bytes[...])
    }

    func write(_ seq: Int, _ entry: Entry) {
        guard let offset = offset(of: seq) else { return }
        let bytes = Self.encode(entry)
        // A failed write (the disk is full) loses only this lookup: the journal still has the push.
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, Self.entrySize, offset) }
    }

    /// The sequence numbers whose entry has `idHash` and a push, oldest first.
    func seqs(idHash: UInt64) -> [Int] {
        var found: [Int] = []
        forEachEntry { seq, buffer, start in
            if Self.word(buffer, start + 24) == idHash, Self.word(buffer, start) != 0 { found.append(seq) }
        }
        return found
    }

    /// The sequence numbers whose entry has a push and no delivery (pending), oldest first. A delivery whose line
    /// does not end before `journalEnd` (the journal position its start found whole) is forgotten first, and its push
    /// is pending: a delivery's line is written without an fsync of its own (`Journal.append(synced:)`), so a crash
    /// of the machine can lose it while this entry, written after it, was kept.
    func pendingSeqs(deliveriesBefore journalEnd: Int64) -> [Int] {
        var found: [Int] = []
        var lost: [Int] = []
        forEachEntry { seq, buffer, start in
            guard Self.word(buffer, start) != 0 else { return }
            let delivery = Self.word(buffer, start + 8)
            if delivery == 0 {
                found.append(seq)
            } else if Int64(bitPattern: delivery) &- 1 &+ Int64(Self.word(buffer, start + 32) >> 32) > journalEnd {
                lost.append(seq)
                found.append(seq)
            }
        }
        for seq in lost {
            guard var entry = entry(seq) else { continue }
            entry.delivery = nil
            write(seq, entry)
        }
        return found
    }

    /// Calls `body` with each entry's sequence number, and the buffer and offset its bytes are at; reads 48 KiB at
    /// a time.
    private func forEachEntry(_ body: (_ seq: Int, _ buffer: [UInt8], _ start: Int) -> Void) {
        let perRead = 1024
        var buffer = [UInt8](repeating: 0, count: perRead * Self.entrySize)
        var index = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(index * Self.entrySize)) }
            guard count >= Self.entrySize else { break }
            let entries = count / Self.entrySize
            for slot in 0..<entries { body(firstSeq + index + slot, buffer, slot * Self.entrySize) }
            index += entries
            if count < buffer.count { break }
        }
    }

    /// The file's length in bytes (0 when it cannot be read). Moves the descriptor's offset, which pread and pwrite
    /// do not use.
    var length: Int64 {
        Int64(max(lseek(descriptor, 0, SEEK_END), 0))
    }

    /// Makes what was written to the index at `url` durable (a checkpoint vouches for it next); false when it fails.
    static func sync(_ url: URL) -> Bool {
        let opened = open(url.path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { return false }
        defer { close(opened) }
        return fsync(opened) == 0
    }

    /// FNV-1a, 64 bits: spreads apns-ids and message names well enough to make a collision rare (each match is
    /// checked against the journal's line anyway).
    static func hash(_ id: String) -> UInt64 {
        hash(bytes: id.utf8)
    }

    static func hash(bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    // Layout, little-endian: push position + 1, delivery position + 1, previous, idHash (8 bytes each), push
    // length, delivery length (4 bytes each), 8 bytes spare. Zeros (a hole in the file) mean no push yet.
    private static func encode(_ entry: Entry) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: entrySize)
        func put(_ value: UInt64, _ at: Int, _ width: Int) {
            for byte in 0..<width { bytes[at + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte))) }
        }
        put(entry.push.map { UInt64($0.position + 1) } ?? 0, 0, 8)
        put(entry.delivery.map { UInt64($0.position + 1) } ?? 0, 8, 8)
        put(UInt64(max(entry.previous, 0)), 16, 8)
        put(entry.idHash, 24, 8)
        put(UInt64(entry.push?.length ?? 0), 32, 4)
        put(UInt64(entry.delivery?.length ?? 0), 36, 4)
        return bytes
    }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in (0..<8).reversed() { value = value << 8 | UInt64(bytes[at + byte]) }
        return value
    }

    private static func decode(_ slice: ArraySlice<UInt8>) -> Entry {
        let bytes = Array(slice)
        let push = word(bytes, 0)
        let delivery = word(bytes, 8)
        let lengths = word(bytes, 32)
        let pushLength = Int(lengths & 0xFFFF_FFFF)
        let deliveryLength = Int(lengths >> 32)
        return Entry(
            push: push == 0 ? nil : (Int64(bitPattern: push) &- 1, pushLength),
            delivery: delivery == 0 ? nil : (Int64(bitPattern: delivery) &- 1, deliveryLength),
            previous: Int(truncatingIfNeeded: word(bytes, 16)), idHash: word(bytes, 24))
    }
}
