import Foundation

/// The folders a push's files go through (its working folder, the attachment store, the staging folder, the
/// result's parent), made with one mkdir(2) each.
///
/// Why not `FileManager.createDirectory(at:withIntermediateDirectories: true)` alone: it looks at every level
/// of the path first and builds an error object when one is missing, several calls and allocations for a folder
/// that, in a batch, usually exists already or lacks only its last level; those calls were 2 to 3% of a batch's
/// CPU (perf, latency workload).
package enum FolderCreation {
    /// Makes `folder` and any missing parents. A folder already there counts as made, and so does anything else
    /// of that name: the file operation that follows in it then fails and says why.
    package static func make(_ folder: URL) throws {
        if mkdir(folder.path, 0o777) == 0 || errno == EEXIST { return }
        // A missing parent (or an error worth FileManager's words): the thorough way.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
}
