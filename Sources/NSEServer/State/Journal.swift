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
    private let descriptor: Mutex<Int32>

    init(directory: URL) throws(ServeSetupError) {
        url = directory.appendingPathComponent(Self.fileName)
        let opened = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw ServeSetupError("Cannot open the journal \(url.path): \(String(cString: strerror(errno))).")
        }
        descriptor = Mutex(opened)
    }

    deinit {
        _ = descriptor.withLock { close($0) }
    }

    /// Appends `record` as one line and waits until it is on disk; the write and fsync run on a blocking thread,
    /// never on the event loop or the cooperative pool.
    func append(_ record: Data) async throws(ServeSetupError) {
        var bytes = record
        bytes.append(0x0A)
        let line = bytes
        let failure: String? = await BlockingExecutor.shared.run("nse.serve.journal") { [self] in
            descriptor.withLock { fd in
                let written = line.withUnsafeBytes { Self.writeAll(fd, $0) }
                guard written else { return "write: \(String(cString: strerror(errno)))" }
                guard fsync(fd) == 0 else { return "fsync: \(String(cString: strerror(errno)))" }
                return nil
            }
        }
        if let failure { throw ServeSetupError("The journal \(url.path) could not be written (\(failure)).") }
    }

    /// Empties the journal (the control API's clear), on disk before it returns.
    func clear() async throws(ServeSetupError) {
        let failure: String? = await BlockingExecutor.shared.run("nse.serve.journal") { [self] in
            descriptor.withLock { fd in
                guard ftruncate(fd, 0) == 0, fsync(fd) == 0 else { return String(cString: strerror(errno)) }
                return nil
            }
        }
        if let failure { throw ServeSetupError("The journal \(url.path) could not be cleared (\(failure)).") }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
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
