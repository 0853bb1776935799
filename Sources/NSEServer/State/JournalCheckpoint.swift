import Foundation

/// What the journal adds up to at one of its positions, on disk beside it (`<data>/journal.checkpoint`): the devices
/// and their changes, the clock and activity, each device's newest push, the next sequence number, and that the index
/// (`journal.index`) holds every push and delivery before that position. A restart that finds a checkpoint it can
/// trust reads only the journal's lines after it (`ServeState.init`), instead of every line.
///
/// The journal stays the record. A checkpoint is written whole or not at all (a temporary file, fsync'd, renamed),
/// after the index is fsync'd; it is trusted only when its checksum holds, the journal still has the same bytes just
/// before its position (not cut by the torn-line repair, cleared or replaced since), the index is at least as long as
/// it was, and the devices file gives the same devices. Otherwise it is deleted and the start reads the whole journal,
/// as it does without one.
///
/// Lines after the position are read again at the start, and the state it was taken from may already have applied a
/// few of them (an append that was still returning, `Journal.settledPosition`): reading a line back is idempotent
/// (`ServeState.Loaded.read`).
struct JournalCheckpoint: Codable, Sendable {
    static let fileName = "journal.checkpoint"
    /// 3: the tokens rotations and reinstalls replaced in lists, oldest first (`RetiredTokens.Entry`), since only so
    /// many are kept and the oldest is forgotten first; 2 kept them in maps, without their order. A checkpoint of
    /// another format is not used: the whole journal is read.
    static let format = 3
    /// The first line: this tag, the format and the checksum of the rest (FNV-1a, hex).
    static let tag = "nse-journal-checkpoint"

    struct Device: Codable, Sendable {
        var key: String
        var device: DeviceEntry
    }

    var format = Self.format
    /// The journal position the state is the journal's up to: the first line read at the start begins here.
    var position: Int64
    /// The journal's base (its `clear` line's; 0 before any clear).
    var base: Int64
    /// `Journal.fingerprint(before: position)`, hex.
    var journalTail = ""
    var indexFirstSeq: Int
    var indexLength: Int64
    var indexEntrySize = HistoryIndex.entrySize
    /// `devicesFileHash` of the devices file's devices the state was built on.
    var devicesFile: String
    var nextSeq: Int
    /// Lines before `position` that could not be read (the start reports them as a full read would).
    var skipped: Int
    var devices: [Device]
    var uninstalled: [String: Int64]
    /// The tokens rotations and reinstalls replaced, each kind oldest first.
    var retiredFCMTokens: [RetiredTokens.Entry]
    var retiredAPNsTokens: [RetiredTokens.Entry]
    var retiredFIDs: [RetiredTokens.Entry]
    var newest: [String: Int]
    var clockOffset: Double
    /// Milliseconds on the emulator's clock, as the `active` lines say.
    var lastActive: [String: Int64]
    var activeSince: Int64?

    static func url(in directory: URL) -> URL {
        directory.appendingPathComponent(fileName)
    }

    private static func temporaryURL(in directory: URL) -> URL {
        directory.appendingPathComponent(fileName + ".tmp")
    }

    static func hex(_ value: UInt64) -> String {
        String(value, radix: 16)
    }

    /// A hash of the devices file's devices: a checkpoint made on other ones is not used (the devices a full read
    /// gives start from the file's).
    static func devicesFileHash(_ devices: [DeviceEntry]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return hex(HistoryIndex.hash(bytes: (try? encoder.encode(devices)) ?? Data()))
    }

    /// The data folder's checkpoint when every check holds; nil (and why not, when there is a file) otherwise.
    static func load(in directory: URL, devicesFile: String) -> (checkpoint: JournalCheckpoint?, rejected: String?) {
        let (read, unreadable) = read(in: directory)
        guard let checkpoint = read else { return (nil, unreadable) }
        guard checkpoint.devicesFile == devicesFile else { return (nil, "the devices file changed") }
        // A base is never negative (a clear's counts the bytes it emptied), and sequence numbers count pushes: with
        // these bounds no arithmetic on a checkpoint's numbers can overflow, whatever a damaged file says.
        guard checkpoint.base >= 0, checkpoint.position >= checkpoint.base, checkpoint.nextSeq >= checkpoint.indexFirstSeq,
              checkpoint.indexFirstSeq >= 1, checkpoint.nextSeq < 1 << 52, checkpoint.indexLength >= 0,
              (0..<(1 << 52)).contains(checkpoint.skipped) else {
            return (nil, "it cannot be read")
        }
        if let wrongJournal = checkpoint.journalDiffers(in: directory) { return (nil, wrongJournal) }
        let index = open(directory.appendingPathComponent(HistoryIndex.fileName).path, O_RDONLY | O_CLOEXEC)
        guard index >= 0 else { return (nil, "the index cannot be read") }
        defer { close(index) }
        guard Int64(max(lseek(index, 0, SEEK_END), 0)) >= checkpoint.indexLength else { return (nil, "the index is shorter") }
        return (checkpoint, nil)
    }

    /// The checkpoint file as written, when its checksum holds, before any check against the journal.
    static func read(in directory: URL) -> (checkpoint: JournalCheckpoint?, unreadable: String?) {
        guard let file = FileManager.default.contents(atPath: url(in: directory).path) else { return (nil, nil) }
        guard let newline = file.firstIndex(of: 0x0A) else { return (nil, "no header") }
        let header = String(decoding: file[file.startIndex..<newline], as: UTF8.self).split(separator: " ")
        let body = file[file.index(after: newline)...]
        guard header.count == 3, header[0] == tag else { return (nil, "no header") }
        guard header[1] == String(format) else { return (nil, "its format is \(header[1].prefix(16)), not \(format)") }
        guard header[2] == hex(HistoryIndex.hash(bytes: body)) else {
            return (nil, "its checksum does not hold")
        }
        guard let checkpoint = try? JSONDecoder().decode(JournalCheckpoint.self, from: Data(body)), checkpoint.format == format,
              checkpoint.indexEntrySize == HistoryIndex.entrySize else { return (nil, "it cannot be read") }
        return (checkpoint, nil)
    }

    /// Why the journal is not the one the checkpoint was taken on, or nil when it is.
    private func journalDiffers(in directory: URL) -> String? {
        let url = directory.appendingPathComponent(Journal.fileName)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "the journal cannot be read" }
        defer { close(fd) }
        let offset = position - base
        let fileEnd = Int64(max(lseek(fd, 0, SEEK_END), 0))
        guard fileEnd >= offset else { return "the journal is shorter" }
        guard Journal.fingerprint(descriptor: fd, before: offset).map(Self.hex) == journalTail else { return "the journal changed" }
        // A line starts at the position; the journal's first line gives its base (a clear's line), or it has none.
        if offset > 0 {
            var byte: UInt8 = 0
            guard pread(fd, &byte, 1, off_t(offset - 1)) == 1, byte == 0x0A else { return "the journal changed" }
        }
        var firstBase: Int64 = 0
        Journal.scan(descriptor: fd, base: 0, from: 0, to: fileEnd) { _, line in
            if line.starts(with: Data(#"{"type":"clear","#.utf8)) {
                let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any]
                firstBase = (object?["base"] as? NSNumber)?.int64Value ?? -1
            }
            return false
        }
        return firstBase == base ? nil : "the journal was cleared since"
    }

    /// Writes the checkpoint to a temporary file beside the real one, fsync'd; `commit` puts it in place.
    func writeTemporary(in directory: URL) -> Bool {
        guard let body = try? JSONEncoder().encode(self) else { return false }
        var file = Data("\(Self.tag) \(Self.format) \(Self.hex(HistoryIndex.hash(bytes: body)))\n".utf8)
        file.append(body)
        let path = Self.temporaryURL(in: directory).path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let written = file.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return written && fsync(fd) == 0
    }

    /// Renames the temporary file over the checkpoint and makes the rename durable.
    static func commit(in directory: URL) {
        guard rename(temporaryURL(in: directory).path, url(in: directory).path) == 0 else { return }
        syncDirectory(directory)
    }

    /// Deletes the checkpoint (and a temporary one), durably: before the index is rebuilt or the journal cleared, so
    /// no checkpoint outlives the index it vouched for.
    static func remove(in directory: URL) {
        let removed = [url(in: directory), temporaryURL(in: directory)].map { unlink($0.path) == 0 }
        if removed.contains(true) { syncDirectory(directory) }
    }

    private static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
