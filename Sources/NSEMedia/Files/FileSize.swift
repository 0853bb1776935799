import Foundation

/// A file's size as `FileManager.attributesOfItem(atPath:)[.size]` gives it (lstat(2): a link's own size),
/// without that call's other work: it also looks up the owner's and group's names (reading /etc/passwd and
/// /etc/group) and lists the extended attributes, a dozen system calls for a number asked of every push's files.
package enum FileSize {
    /// nil when nothing is at the path.
    package static func of(_ url: URL) -> Int? {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
