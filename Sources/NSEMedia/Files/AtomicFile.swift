import Foundation

/// Writes that readers never see half done: a temporary file in the destination's folder, then rename(2).
package enum AtomicFile {
    package static func write(_ data: Data, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = temporaryURL(beside: destination)
        do {
            try data.write(to: temporary)
            try replace(destination, with: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Moves `source` to `destination`, copying first when they are on different file systems.
    ///
    /// On one file system rename(2) alone is atomic; only a copy goes through a temporary file (one rename and
    /// one file name fewer per attachment in a batch).
    package static func move(_ source: URL, to destination: URL) throws {
        try FolderCreation.make(destination.deletingLastPathComponent())
        if rename(source.path, destination.path) == 0 { return }
        let temporary = temporaryURL(beside: destination)
        do {
            try FileManager.default.copyItem(at: source, to: temporary)
            try replace(destination, with: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    private static func temporaryURL(beside destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
    }

    private static func replace(_ destination: URL, with temporary: URL) throws {
        guard rename(temporary.path, destination.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }
}
