import Foundation
import Synchronization

/// The working folders of a batch's pushes, each reused by a later push once emptied.
///
/// Why: a push made three folders (its working folder and the attachment store's two) and the workspace's
/// removal took them away again; on ext4 every new folder is placed by a search that skips recently freed
/// inodes one by one, and those `mkdir` and `rmdir` calls were 28% of a shared-image batch's CPU (perf, 1,000
/// pushes). A batch now makes at most one working folder per push in flight.
///
/// An emptied folder holds nothing a run made except the attachment store's folders, themselves emptied.
final class WorkFolderPool: Sendable {
    private let root: URL
    private struct State {
        var free: [URL] = []
        var made = 0
    }

    // Guarded by itself: the emptied folders waiting for a push, and how many folders were made.
    private let state = Mutex(State())

    init(root: URL) {
        self.root = root
    }

    /// A folder no other push holds: an emptied one, or a new one; nil when none can be made (the run then makes
    /// its own in the temporary directory, and says so if that fails too).
    func take() -> URL? {
        let taken: (reused: URL?, number: Int) = state.withLock { state in
            if let folder = state.free.popLast() { return (folder, 0) }
            state.made += 1
            return (nil, state.made)
        }
        if let reused = taken.reused { return reused }
        let folder = root.appendingPathComponent("push-\(taken.number)")
        return (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil ? folder : nil
    }

    /// Empties `folder` for the next push; one that cannot be emptied is left to the workspace's removal.
    func giveBack(_ folder: URL) {
        guard Self.empty(folder) else { return }
        state.withLock { $0.free.append(folder) }
    }

    /// Removes everything in `folder` but the attachment store's own folders, which are emptied. Never follows
    /// a symbolic link: an extension may have left one anywhere in its folder.
    static func empty(_ folder: URL) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        return names.allSatisfy { name in
            let entry = folder.appending(path: name)
            if name == ExtensionContext.attachmentStoreName, isFolder(entry) {
                guard let stores = try? FileManager.default.contentsOfDirectory(atPath: entry.path) else { return false }
                return stores.allSatisfy { store in
                    let storeFolder = entry.appending(path: store)
                    guard isFolder(storeFolder) else { return remove(storeFolder) }
                    let files = (try? FileManager.default.contentsOfDirectory(atPath: storeFolder.path)) ?? []
                    return files.allSatisfy { remove(storeFolder.appending(path: $0)) }
                }
            }
            return remove(entry)
        }
    }

    /// A real folder, not a link to one.
    private static func isFolder(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// A file (or link) by unlink(2) alone; a folder, which unlink refuses, with everything in it.
    private static func remove(_ url: URL) -> Bool {
        if unlink(url.path) == 0 || errno == ENOENT { return true }
        return (try? FileManager.default.removeItem(at: url)) != nil
    }
}
