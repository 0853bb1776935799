import Foundation
import NSEConcurrency
import Synchronization

/// The data folder's append-only record of what the server accepted and what each phone then showed: one JSON
/// object a line (`<data>/journal.jsonl`). A record is on disk (fsync'd) before the answer that depends on it
/// goes out, so a restarted server serves the same history.
final class Journal: Sendable {
    static let fileName = "journal.jsonl"
    /// The longest line replayed: a record holds at most one request body (`HTTPServer.maxBodyBytes`) and its
    /// result, escaped; a longer line is no record this server wrote.
    static let maxLineBytes = 8 << 20

    let url: URL
    private let descriptor: Int32
    /// Appends waiting for the writer, and whether a writer is at work. Appends that arrive while one batch is
    /// written and fsync'd go to disk together with the next fsync (group commit): a hundred concurrent pushes
    /// cost a few fsyncs, not a hundred in turn.
    private let queue = Mutex(Queue())

    private struct Queue {
        var pending: [(operation: Operation, done: CheckedContinuation<String?, Never>)] = []
        var writing = false
    }

    private enum Operation {
        case append(Data)
        case truncate
    }

    init(directory: URL) throws(ServeSetupError) {
        url = directory.appendingPathComponent(Self.fileName)
        let opened = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw ServeSetupError("Cannot open the journal \(url.path): \(String(cString: strerror(errno))).")
        }
        descriptor = opened
    }

    deinit {
        close(descriptor)
    }

    /// Appends `record` as one line and returns once it is on disk. The writing and fsync run on a blocking
    /// thread, never on an event loop or the cooperative pool.
    func append(_ record: Data) async throws(ServeSetupError) {
        var line = record
        line.append(0x0A)
        if let failure = await submit(.append(line)) {
            throw ServeSetupError("The journal \(url.path) could not be written (\(failure)).")
        }
    }

    /// Empties the journal (the control API's clear), on disk before it returns, in order with the appends.
    func clear() async throws(ServeSetupError) {
        if let failure = await submit(.truncate) {
            throw ServeSetupError("The journal \(url.path) could not be cleared (\(failure)).")
        }
    }

    private func submit(_ operation: Operation) async -> String? {
        await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            let startsWriter = queue.withLock { queue in
                queue.pending.append((operation, done))
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if startsWriter { BlockingExecutor.shared.execute("nse.serve.journal") { [self] in drain() } }
        }
    }

    /// Writes what is queued, one fsync per batch, until nothing is; then the next append starts a writer again.
    private func drain() {
        while true {
            let batch: [(operation: Operation, done: CheckedContinuation<String?, Never>)] = queue.withLock { queue in
                let taken = queue.pending
                queue.pending = []
                if taken.isEmpty { queue.writing = false }
                return taken
            }
            guard !batch.isEmpty else { return }
            var lines = Data()
            var waiting: [CheckedContinuation<String?, Never>] = []
            for (operation, done) in batch {
                switch operation {
                case .append(let line):
                    lines.append(line)
                    waiting.append(done)
                case .truncate:
                    // The appends before it land first, then the file is emptied.
                    let failure = flush(lines)
                    for waiter in waiting { waiter.resume(returning: failure) }
                    lines = Data()
                    waiting = []
                    let truncated = ftruncate(descriptor, 0) == 0 && fsync(descriptor) == 0
                    done.resume(returning: truncated ? nil : String(cString: strerror(errno)))
                }
            }
            let failure = flush(lines)
            for waiter in waiting { waiter.resume(returning: failure) }
        }
    }

    /// Writes `lines` and fsyncs; nil on success, else why not.
    private func flush(_ lines: Data) -> String? {
        guard !lines.isEmpty else { return nil }
        let written = lines.withUnsafeBytes { Self.writeAll(descriptor, $0) }
        guard written else { return "write: \(String(cString: strerror(errno)))" }
        guard fsync(descriptor) == 0 else { return "fsync: \(String(cString: strerror(errno)))" }
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

    /// The records in `directory`'s journal, oldest first. A last line cut short by a crash mid-write, or any
    /// line that is not a JSON object, is skipped and counted in `skipped`.
    static func replay(directory: URL) throws(ServeSetupError) -> (records: [[String: Any]], skipped: Int) {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return ([], 0) }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ServeSetupError("Cannot read the journal \(url.path): \(error.localizedDescription).")
        }
        var records: [[String: Any]] = []
        var skipped = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard line.count <= maxLineBytes,
                  let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                skipped += 1
                continue
            }
            records.append(object)
        }
        return (records, skipped)
    }
}
