import Foundation
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization

/// The private folder of a `process` or `batch` run: working folders, the media cache, results waiting to be
/// moved into place, and the spool of encoded results that `report.json` is assembled from. Removed when the
/// run ends.
///
/// With an output folder it lives inside it (`OUT/.nse-work-PID-UUID`, hidden, so a later batch over the same
/// tree skips it): the same file system, so attachments and result folders move into place by rename.
package final class ResultWorkspace: Sendable {
    static let prefix = ".nse-work-"
    package let root: URL
    /// The pushes' working folders, under `work`, reused from push to push.
    package let workFolders: WorkFolderPool
    package var cache: URL { root.appending(path: "cache") }
    private var stage: URL { root.appending(path: "stage") }
    private var trash: URL { root.appending(path: "trash") }
    private let spool: ResultSpool?
    private let nextName = Atomic(0)
    private let unsaved = Mutex<[String]>([])

    /// Throws `OutputFolderError` when the output folder cannot be made or written.
    package init(outDirectory: URL?) throws {
        let parent = outDirectory ?? FileManager.default.temporaryDirectory
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw OutputFolderError(folder: parent)
        }
        Self.removeAbandoned(in: parent)
        root = parent.appending(path: "\(Self.prefix)\(getpid())-\(UUID().uuidString)")
        do {
            for folder in [root.appending(path: "work"), root.appending(path: "stage"), root.appending(path: "trash")] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw OutputFolderError(folder: parent)
        }
        spool = outDirectory == nil ? nil : try ResultSpool(file: root.appending(path: "results.spool"))
        workFolders = WorkFolderPool(root: root.appending(path: "work"))
    }

    /// Removes the workspaces of batches that were killed (SIGKILL, a crash) before they could clean up:
    /// those whose process no longer exists. A batch still running keeps its own.
    private static func removeAbandoned(in parent: URL) {
        AbandonedFiles.remove(prefixes: [prefix], in: parent)
    }

    /// A fresh folder for one push's result, to be committed or discarded.
    package func stagingFolder(for index: Int) -> URL {
        stage.appending(path: String(index))
    }

    /// Saves `result` (whose attachments were saved into `staged`) as `destination/content.json` beside them,
    /// replacing whatever a previous run left in `destination` whole. Returns the JSON written.
    package func publish(_ result: inout ProcessResult, staged: URL, to destination: URL) throws -> Data {
        result.relocateAttachments(to: destination)
        let json = JSONResultRenderer().encode(result)
        do {
            try FolderCreation.make(staged)
            try Self.write(json, to: staged.appending(path: "content.json"))
            try commit(staged, to: destination)
        } catch {
            let reason = "the result of \(result.input) could not be saved to \(destination.path): \(error.localizedDescription)"
            unsaved.withLock { $0.append(reason) }
            result.diagnostics.append(.warning(.mediaNotSaved, "The result could not be saved to \(destination.path): \(error.localizedDescription). The verdict is unaffected."))
            throw error
        }
        return json
    }

    /// Every result `publish` could not save, in words for stderr ("the result of X could not be saved to ...").
    /// One rule for `process` and `batch`: a run that lost a result it was asked to save ends with exit status 2.
    package var unsavedResults: [String] {
        unsaved.withLock { $0 }
    }

    /// Puts the staged folder where the result belongs, replacing what a previous run left there.
    ///
    /// The old folder is first renamed aside, so a reader sees the old complete result, then the new complete
    /// one; never a mix of the two or a half-written file.
    func commit(_ staged: URL, to destination: URL) throws {
        try FolderCreation.make(destination.deletingLastPathComponent())
        if rename(staged.path, destination.path) == 0 { return }
        guard [EEXIST, ENOTEMPTY, ENOTDIR, EISDIR].contains(errno) else { throw Self.posixError(destination) }
        let aside = trash.appending(path: String(nextName.add(1, ordering: .relaxed).newValue))
        guard rename(destination.path, aside.path) == 0 else { throw Self.posixError(destination) }
        guard rename(staged.path, destination.path) == 0 else {
            let error = Self.posixError(destination)
            _ = rename(aside.path, destination.path)
            throw error
        }
        try? FileManager.default.removeItem(at: aside)
    }

    /// Writes a new file in a staging folder. Not `Data.write(to:)`, which calls fsync(2): a sync per push
    /// made the batch wait on the disk, and the folder is only published (renamed) once the file is complete.
    static func write(_ data: Data, to file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError(file) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError(file)
                }
                offset += written
            }
        }
    }

    /// Keeps a result's JSON for the report; returns where it is in the spool.
    package func spoolResult(_ json: Data) throws -> Range<UInt64>? {
        try spool?.append(json)
    }

    package func spooledResult(_ span: Range<UInt64>) throws -> Data {
        guard let spool else { return Data() }
        return try spool.read(span)
    }

    package func remove() {
        spool?.close()
        // After an interrupt, an extension's thread that outlived its cancelled push can still write into its work
        // folder while the tree is being removed; the removal then fails on a folder no longer empty. Try again
        // for up to 5 s, so the interrupted run leaves nothing in the output folder: 100 ms in all was not enough
        // on a loaded machine, where that thread waits for a core. (A patch at the removal: the late writer
        // itself is not found yet.)
        for _ in 0..<50 {
            try? FileManager.default.removeItem(at: root)
            guard FileManager.default.fileExists(atPath: root.path) else { return }
            usleep(100_000)
        }
    }

    private static func posixError(_ url: URL) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
    }
}

/// An output folder that cannot be made or written: `--out` names a file, or a folder without permission.
package struct OutputFolderError: Error, Sendable, CustomStringConvertible {
    package var folder: URL

    package init(folder: URL) {
        self.folder = folder
    }

    package var description: String {
        // The nearest part of the path that exists says what is in the way: a file where a folder should be.
        var existing = folder.standardizedFileURL
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isFolder), existing.pathComponents.count > 1 {
            existing.deleteLastPathComponent()
        }
        if !isFolder.boolValue {
            let part = existing.path == folder.standardizedFileURL.path ? "it is" : "\(existing.path) is"
            return "cannot write results to \(folder.path): \(part) a file, not a folder. Name a folder (it is created if missing)."
        }
        if access(existing.path, W_OK) != 0 {
            return "cannot write results to \(folder.path): \(existing.path) is not writable. Name a folder you can write to."
        }
        return "cannot write results to \(folder.path). Name a folder you can write to."
    }
}

/// An append-only file of encoded results: the batch holds offsets, not results.
final class ResultSpool: Sendable {
    private let handle: Mutex<FileHandle>

    init(file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        handle = Mutex(try FileHandle(forUpdating: file))
    }

    func append(_ data: Data) throws -> Range<UInt64> {
        try handle.withLock { handle in
            let start = try handle.seekToEnd()
            try handle.write(contentsOf: data)
            return start..<(start + UInt64(data.count))
        }
    }

    func read(_ span: Range<UInt64>) throws -> Data {
        try handle.withLock { handle in
            try handle.seek(toOffset: span.lowerBound)
            return try handle.read(upToCount: Int(span.count)) ?? Data()
        }
    }

    func close() {
        handle.withLock { try? $0.close() }
    }
}

extension ProcessResult {
    /// Points saved attachments (and the Android image) at their final folder (they were saved into a staging
    /// folder first).
    mutating func relocateAttachments(to folder: URL) {
        // The name alone: `URL(fileURLWithPath:)` would look the path up on disk, once per attachment.
        func moved(_ file: String) -> String {
            folder.appending(path: file.split(separator: "/").last.map(String.init) ?? file).relativePath
        }
        if let file = android?.image?.file { android?.image?.file = moved(file) }
        guard var content, content.attachments.contains(where: { $0.file != nil }) else { return }
        for index in content.attachments.indices {
            guard let file = content.attachments[index].file else { continue }
            content.attachments[index].file = moved(file)
        }
        self.content = content
    }
}
