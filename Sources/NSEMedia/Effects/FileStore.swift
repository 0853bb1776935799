import Foundation

/// Where a push's files live while it runs and where its kept attachments go: the run's private working folder
/// (downloads, the attachment store) and the move of each kept attachment into the result's folder. `TemporaryFileStore`
/// for every command; a unit test gives its own folder, or a store that fails, to see what a push does then.
package protocol FileStore: Sendable {
    /// The folder new working folders are made in, named in the diagnostic when one cannot be made.
    var root: URL { get }
    /// A new working folder's path (not made yet): unique to one run.
    func newWorkFolder() -> URL
    /// Makes `folder` and any missing parents.
    func makeFolder(_ folder: URL) throws
    /// Removes `folder` and everything in it; a folder already gone is not an error.
    func remove(_ folder: URL)
    /// Moves `file` to `destination` so that no reader sees it half written (`AtomicFile.move`).
    func move(_ file: URL, to destination: URL) throws
}

/// The files of a push on disk: working folders in the system's temporary directory (or `root`), attachments moved
/// by rename(2).
package struct TemporaryFileStore: FileStore {
    package var root: URL

    package init(root: URL = FileManager.default.temporaryDirectory) {
        self.root = root
    }

    package func newWorkFolder() -> URL {
        root.appendingPathComponent("nse-\(UUID().uuidString)")
    }

    package func makeFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    package func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    package func move(_ file: URL, to destination: URL) throws {
        try AtomicFile.move(file, to: destination)
    }
}
