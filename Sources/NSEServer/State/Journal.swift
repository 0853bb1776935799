import Foundation
import NSEConcurrency
import Synchronization

/// The data folder's append-only record of what the server accepted and what each phone then showed: one JSON
/// object a line (`<data>/journal.jsonl`). A record is on disk (fsync'd) before the answer that depends on it
/// goes out, so a restarted server serves the same history. The history is read back from here on demand
/// (`read(at:)`), never held in memory.
///
/// Every line has a position: its byte offset plus the bytes of the journals a clear emptied before it (`base`,
/// kept in the `clear` line a clear writes first). Positions only grow, across clears and restarts, so they
/// number the events stream (`id:`) and a client's `Last-Event-ID` finds its place again.
final class Journal: Sendable {
    static let fileName = "journal.jsonl"
    /// The longest line replayed: a record holds at most one request body (`HTTPServer.maxBodyBytes`) and its
    /// result, escaped; a longer line is no record this server wrote.
    static let maxLineBytes = 8 << 20

    let url: URL
    private let descriptor: Int32
    /// A second descriptor for reading back (pread), so readers never wait for the writer.
    private let reader: Int32
    /// Appends waiting for the writer, and whether a writer is at work. Appends that arrive while one batch is
    /// written and fsync'd go to disk together with the next fsync (group commit): a hundred concurrent pushes
    /// cost a few fsyncs, not a hundred in turn.
    private let queue: Mutex<Queue>

    typealias Durable = @Sendable (_ position: Int64) -> Void

    private struct Queue {
        var pending: [(operation: Operation, done: CheckedContinuation<Result<Int64, Failure>, Never>)] = []
        var writing = false
        /// The file's length; written only by the one writer at work.
        var end: Int64
        /// The position of the file's first byte.
        var base: Int64
        /// The appends (and clears) not yet returned to their callers, each with a position its line cannot come
        /// before: `settledPosition` is the least of them.
        var unsettled: [Int: Int64] = [:]
        var nextTicket = 0
        /// Called (off the lock) each time the journal has grown by `every` bytes: `ServeState` writes a checkpoint.
        var growth: (every: Int64, next: Int64, handler: @Sendable () -> Void)?
    }

    struct Failure: Error {
        var description: String
    }

    private enum Operation {
        /// A line, what to do once it is on disk (on the writer's thread, in file order), and whether its caller
        /// waits for the fsync (`synced`) or only for the write.
        /// `follower` makes a second line from the first's position, written right after it in the same write.
        case append(Data, follower: (@Sendable (_ position: Int64) -> Data)?, Durable?, synced: Bool)
        /// Empties the file and writes `clear`'s line made for the new base.
        case truncate(@Sendable (_ base: Int64) -> Data)
    }

    /// Opens the journal, cutting off a last line that a crash left without its newline (`replay` counted it
    /// as skipped first), so the next append starts a line of its own.
    init(directory: URL, validEnd: Int64? = nil, base: Int64 = 0) throws(ServeSetupError) {
        url = directory.appendingPathComponent(Self.fileName)
        let opened = open(url.path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw ServeSetupError("Cannot open the journal \(url.path): \(String(cString: strerror(errno))).")
        }
        let reading = open(url.path, O_RDONLY | O_CLOEXEC)
        guard reading >= 0 else {
            close(opened)
            throw ServeSetupError("Cannot open the journal \(url.path): \(String(cString: strerror(errno))).")
        }
        var end = Int64(lseek(opened, 0, SEEK_END))
        if let validEnd, validEnd < end {
            guard ftruncate(opened, off_t(validEnd)) == 0, fsync(opened) == 0 else {
                close(opened)
                close(reading)
                throw ServeSetupError("Cannot cut the torn last line off the journal \(url.path): \(String(cString: strerror(errno))).")
            }
            end = validEnd
        }
        descriptor = opened
        reader = reading
        queue = Mutex(Queue(end: Int64(max(end, 0)), base: base))
    }

    deinit {
        close(descriptor)
        close(reader)
    }

    /// Appends `record` as one line and returns its position once it is on disk. `durable` runs once it is, on
    /// the writer's thread, in the order the lines are in the file (the events stream relies on it). The writing
    /// and fsync run on a blocking thread, never on an event loop or the cooperative pool.
    ///
    /// `synced: false` (a line no answer to a sender depends on: a delivery, which a restart runs again if a crash
    /// of the machine lost it) returns once the line is written to the file, before its fsync; the line is fsync'd
    /// with the next line that is, or as soon as the writer has nothing left to write, and `durable` runs then. A
    /// process that dies keeps what it wrote (the kernel holds it); only the machine's crash can lose such a line.
    ///
    /// It runs on the caller's actor (`isolation`) and returns to it without a hop: `ServeState` applies a line's
    /// change in the same turn as the append returns, so every line before `settledPosition` has its change applied.
    ///
    /// `follower`, when given, makes a second line from the first's position, and that line is written right after
    /// the first, in the same write: a push delivered at once has its delivery line (which names the push's
    /// position) in the file with the push's. Its position is the first's plus `record.count + 1`; `durable` runs
    /// once for both.
    @discardableResult
    func append(
        _ record: Data, synced: Bool = true, durable: Durable? = nil, follower: (@Sendable (_ position: Int64) -> Data)? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(ServeSetupError) -> Int64 {
        var line = record
        line.append(0x0A)
        switch await submit(.append(line, follower: follower, durable, synced: synced)) {
        case .success(let position): return position
        case .failure(let failure): throw ServeSetupError("The journal \(url.path) could not be written (\(failure.description)).")
        }
    }

    /// Empties the journal (the control API's clear) and writes `clearLine(base)` as its first line, on disk
    /// before it returns, in order with the appends. Returns the new base.
    @discardableResult
    func clear(_ clearLine: @escaping @Sendable (_ base: Int64) -> Data, isolation: isolated (any Actor)? = #isolation) async throws(ServeSetupError) -> Int64 {
        switch await submit(.truncate(clearLine)) {
        case .success(let base): return base
        case .failure(let failure): throw ServeSetupError("The journal \(url.path) could not be cleared (\(failure.description)).")
        }
    }

    /// The position the next line gets (the end of the journal).
    var endPosition: Int64 {
        queue.withLock { $0.base + $0.end }
    }

    /// The journal position before which every line's append or clear has returned to its caller: a line there is
    /// on disk, and an actor that applies each line's change in the turn its append returns (`ServeState`) has applied
    /// it. Lines at or after it may be on disk with their change still to come, or applied early: a checkpoint taken
    /// there replays them again (`JournalCheckpoint`).
    var settledPosition: Int64 {
        queue.withLock { queue in queue.unsettled.values.min().map { min($0, queue.base + queue.end) } ?? queue.base + queue.end }
    }

    /// The position of the journal's first byte (the bytes a clear emptied before it).
    var basePosition: Int64 {
        queue.withLock { $0.base }
    }

    /// Calls `handler` each time the journal has grown by `bytes` more, from the writer's thread.
    func onGrowth(every bytes: Int64, _ handler: @escaping @Sendable () -> Void) {
        queue.withLock { $0.growth = (bytes, $0.base + $0.end + bytes, handler) }
    }

    private func submit(_ operation: Operation, isolation: isolated (any Actor)? = #isolation) async -> Result<Int64, Failure> {
        // In the caller's turn, before anything is queued: the line cannot land before the journal's end now.
        let ticket = queue.withLock { queue in
            let ticket = queue.nextTicket
            queue.nextTicket &+= 1
            queue.unsettled[ticket] = queue.base + queue.end
            return ticket
        }
        let result = await withCheckedContinuation(isolation: isolation) { (done: CheckedContinuation<Result<Int64, Failure>, Never>) in
            let startsWriter = queue.withLock { queue in
                queue.pending.append((operation, done))
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if startsWriter { BlockingExecutor.shared.execute("nse.serve.journal") { [self] in drain() } }
        }
        queue.withLock { _ = $0.unsettled.removeValue(forKey: ticket) }
        return result
    }

    /// Writes what is queued, one fsync per batch (none for a batch of unsynced lines only), until nothing is; then
    /// fsyncs what is still unsynced, and the next append starts a writer again.
    private func drain() {
        // Lines written but not yet fsync'd, with what runs once they are: fsync'd with the next batch that needs it,
        // or before the writer stops.
        var unsynced: [(position: Int64, durable: Durable?)] = []

        func syncUnsynced() {
            guard !unsynced.isEmpty else { return }
            _ = fsync(descriptor)
            for (position, durable) in unsynced { durable?(position) }
            unsynced = []
        }

        while true {
            let (batch, startEnd, startBase) = queue.withLock { queue in
                let taken = queue.pending
                queue.pending = []
                // The writer stops only once everything it wrote is on disk.
                if taken.isEmpty, unsynced.isEmpty { queue.writing = false }
                return (taken, queue.end, queue.base)
            }
            guard !batch.isEmpty else {
                if unsynced.isEmpty { return }
                syncUnsynced()
                continue
            }
            var end = startEnd
            var base = startBase
            var lines = Data()
            var written: [(position: Int64, durable: Durable?, synced: Bool, done: CheckedContinuation<Result<Int64, Failure>, Never>)] = []

            func finish() {
                let needsSync = written.contains(where: \.synced)
                let failure = writeOut(lines, sync: needsSync)
                if failure != nil {
                    // What reached the file is unknown: its real length is what the next line follows.
                    end = Int64(max(lseek(descriptor, 0, SEEK_END), 0))
                } else {
                    end += Int64(lines.count)
                }
                if needsSync, failure == nil {
                    // The fsync covered the lines written before these: theirs first, in file order.
                    for (position, durable) in unsynced { durable?(position) }
                    unsynced = []
                }
                for (position, durable, _, done) in written {
                    if let failure {
                        done.resume(returning: .failure(failure))
                    } else {
                        if needsSync { durable?(position) } else { unsynced.append((position, durable)) }
                        done.resume(returning: .success(position))
                    }
                }
                lines = Data()
                written = []
            }

            for (operation, done) in batch {
                switch operation {
                case .append(let line, let follower, let durable, let synced):
                    let position = base + end + Int64(lines.count)
                    written.append((position, durable, synced, done))
                    lines.append(line)
                    if let follower {
                        lines.append(follower(position))
                        lines.append(0x0A)
                    }
                case .truncate(let clearLine):
                    // The appends before it land first, then the file is emptied.
                    finish()
                    syncUnsynced()
                    let newBase = base + end
                    guard ftruncate(descriptor, 0) == 0 else {
                        done.resume(returning: .failure(Failure(description: "truncate: \(String(cString: strerror(errno)))")))
                        continue
                    }
                    base = newBase
                    end = 0
                    var line = clearLine(newBase)
                    line.append(0x0A)
                    lines = line
                    let failure = writeOut(lines, sync: true)
                    end = failure == nil ? Int64(line.count) : Int64(max(lseek(descriptor, 0, SEEK_END), 0))
                    lines = Data()
                    done.resume(returning: failure.map { .failure($0) } ?? .success(newBase))
                }
            }
            finish()
            let grown = queue.withLock { queue -> (@Sendable () -> Void)? in
                queue.end = end
                queue.base = base
                guard let growth = queue.growth, base + end >= growth.next else { return nil }
                queue.growth?.next = base + end + growth.every
                return growth.handler
            }
            grown?()
        }
    }

    /// Forces what was written to disk (a checkpoint vouches for the journal before its position); false when the
    /// fsync fails.
    func sync() -> Bool {
        fsync(descriptor) == 0
    }

    /// Writes `lines`, and fsyncs when `sync`; nil on success, else why not.
    private func writeOut(_ lines: Data, sync: Bool) -> Failure? {
        guard !lines.isEmpty else { return nil }
        let written = lines.withUnsafeBytes { Self.writeAll(descriptor, $0) }
        guard written else { return Failure(description: "write: \(String(cString: strerror(errno)))") }
        guard !sync || fsync(descriptor) == 0 else { return Failure(description: "fsync: \(String(cString: strerror(errno)))") }
        return nil
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }

    /// The line at `position` (`length` bytes, without its newline); nil when a clear emptied it or the read fails.
    func read(at position: Int64, length: Int) -> Data? {
        let base = queue.withLock { $0.base }
        guard position >= base, length >= 0, length <= Self.maxLineBytes else { return nil }
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { Self.readAll(reader, $0, at: position - base) }
        return complete ? data : nil
    }

    /// The whole line at `position`, its length not known (a delivery line names its push's position only).
    /// Read 4 KiB first (a text push's line is about 1 KB), then twice as much each time: an events replay reads
    /// a push line for every delivery, and 64 KiB each cost more than the rest of the replay.
    func readLine(at position: Int64) -> Data? {
        var line = Data()
        var offset = position
        var chunkSize = 4 << 10
        while line.count <= Self.maxLineBytes {
            guard let chunk = read(upTo: chunkSize, at: offset), !chunk.isEmpty else { return nil }
            chunkSize = min(chunkSize * 2, 1 << 20)
            if let newline = chunk.firstIndex(of: 0x0A) {
                line.append(chunk[chunk.startIndex..<newline])
                return line
            }
            line.append(chunk)
            offset += Int64(chunk.count)
        }
        return nil
    }

    /// Up to `count` bytes at `position`: fewer at the end of the file.
    private func read(upTo count: Int, at position: Int64) -> Data? {
        let base = queue.withLock { $0.base }
        guard position >= base else { return nil }
        var data = Data(count: count)
        let got = data.withUnsafeMutableBytes { bytes -> Int in
            while true {
                let read = pread(reader, bytes.baseAddress, count, off_t(position - base))
                if read < 0, errno == EINTR { continue }
                return read
            }
        }
        guard got >= 0 else { return nil }
        return data.prefix(got)
    }

    private static func readAll(_ fd: Int32, _ bytes: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let count = pread(fd, start + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            if count == 0 { return false }
            done += count
        }
        return true
    }

    /// Calls `line` with every complete line from `position` on (a position inside a line starts at the next
    /// one), oldest first, its position and its bytes; reads 1 MiB at a time, so memory stays bounded however
    /// long the journal is. `line` returns false to stop. Returns the end of the last complete line.
    @discardableResult
    func scan(from position: Int64, _ line: (Int64, Data) -> Bool) -> Int64 {
        let (base, end) = queue.withLock { ($0.base, $0.end) }
        return Self.scan(descriptor: reader, base: base, from: max(position, base) - base, to: end, line)
    }

    /// The same over a file not opened as a journal yet (replay at start): the lines of `url` from byte `offset` (a
    /// line's start) to its end, each with its byte offset in the file.
    static func scan(url: URL, from offset: Int64 = 0, _ line: (Int64, Data) -> Bool) throws(ServeSetupError) -> (validEnd: Int64, fileEnd: Int64) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return (0, 0) }
            throw ServeSetupError("Cannot read the journal \(url.path): \(String(cString: strerror(errno))).")
        }
        defer { close(fd) }
        let end = Int64(max(lseek(fd, 0, SEEK_END), 0))
        return (scan(descriptor: fd, base: 0, from: min(max(offset, 0), end), to: end, line), end)
    }

    /// A hash of the file's first 4 KiB and of the 4 KiB before byte `offset` (fewer when the file is shorter): a
    /// checkpoint's record of the journal it was taken on, so a journal cut, cleared or replaced since is not taken
    /// for it. nil when they cannot be read.
    static func fingerprint(descriptor fd: Int32, before offset: Int64) -> UInt64? {
        var bytes: [UInt8] = []
        for start in [0, max(offset - 4096, 0)] {
            var part = [UInt8](repeating: 0, count: Int(min(start + 4096, offset) - start))
            guard part.withUnsafeMutableBytes({ readAll(fd, $0, at: start) }) else { return nil }
            bytes += part
        }
        return HistoryIndex.hash(bytes: bytes)
    }

    /// The fingerprint before journal position `position` (see the static one).
    func fingerprint(before position: Int64) -> UInt64? {
        let base = queue.withLock { $0.base }
        guard position >= base else { return nil }
        return Self.fingerprint(descriptor: reader, before: position - base)
    }

    @discardableResult
    static func scan(descriptor fd: Int32, base: Int64, from start: Int64, to end: Int64, _ line: (Int64, Data) -> Bool) -> Int64 {
        let chunk = 1 << 20
        var offset = start
        var carried = Data()
        var carriedStart = start
        var skipping = start > 0
        var lastComplete = start
        // A start inside a line: back up one byte so a start exactly at a line's beginning is kept.
        if skipping {
            offset = start - 1
            carriedStart = offset
        }
        var tooLong = false
        var buffer = [UInt8](repeating: 0, count: chunk)
        while offset < end {
            let want = Int(min(Int64(chunk), end - offset))
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var lineStart = 0
            for index in 0..<count where buffer[index] == 0x0A {
                if skipping {
                    skipping = false
                } else if tooLong || carried.count + (index - lineStart) > maxLineBytes {
                    // Too long to be a record this server wrote: handed over empty, a line that cannot be read.
                    if !line(base + carriedStart, Data()) { return offset + Int64(index) + 1 }
                } else {
                    carried.append(contentsOf: buffer[lineStart..<index])
                    if !line(base + carriedStart, carried) { return offset + Int64(index) + 1 }
                }
                lineStart = index + 1
                carried = Data()
                tooLong = false
                carriedStart = offset + Int64(lineStart)
                lastComplete = carriedStart
            }
            if !skipping, !tooLong {
                if carried.count + (count - lineStart) > maxLineBytes {
                    tooLong = true
                    carried = Data()
                } else {
                    carried.append(contentsOf: buffer[lineStart..<count])
                }
            }
            offset += Int64(count)
        }
        return lastComplete
    }
}
