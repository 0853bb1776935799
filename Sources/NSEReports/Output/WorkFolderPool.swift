import Foundation
import NSEMedia
import NSEPipeline
import Synchronization

/// The working folders of a batch's pushes, each reused by a later push once emptied.
///
/// Why: a push makes two folders (its working folder and its attachment's store folder), and they were removed
/// again after it; on ext4 every new folder is placed by a search that skips recently freed inodes one by one,
/// and those `mkdir` and `rmdir` calls were a large share of a shared-image batch's CPU. A batch makes at most one
/// working folder per push in flight.
///
/// An emptied folder holds nothing a run made except the attachment store's folders, themselves emptied.
///
/// Once the last push has taken its folder, folders given back are removed instead (`expectTakers`): a batch of
/// 256 pushes in flight holds 512 folders, and removing them all after the report would keep one core busy while
/// the other idles; removed as each push ends, that work overlaps the last pushes' own.
package final class WorkFolderPool: Sendable {
    private let root: URL
    private struct State {
        var free: [URL] = []
        var made = 0
        /// How many more `take` calls will come; nil when unknown (every folder is kept for reuse).
        var takersLeft: Int?
    }

    // Guarded by itself: the emptied folders waiting for a push, how many folders were made, and how many
    // pushes will still take one.
    private let state = Mutex(State())

    package init(root: URL) {
        self.root = root
    }

    /// Says how many pushes will take a folder from now on: after the last of them, none is kept for reuse.
    package func expectTakers(_ count: Int) {
        state.withLock { $0.takersLeft = count }
    }

    /// A folder no other push holds: an emptied one, or a new one; nil when none can be made (the run then makes
    /// its own in the temporary directory, and says so if that fails too).
    package func take() -> URL? {
        let taken: (reused: URL?, number: Int, unwanted: [URL]) = state.withLock { state in
            var unwanted: [URL] = []
            if let left = state.takersLeft {
                state.takersLeft = max(0, left - 1)
            }
            let reused = state.free.popLast()
            if state.takersLeft == 0 {
                // The last taker: the other waiting folders will never be used again.
                unwanted = state.free
                state.free = []
            }
            if let reused { return (reused, 0, unwanted) }
            state.made += 1
            return (nil, state.made, unwanted)
        }
        taken.unwanted.forEach(Self.removeEmptied)
        if let reused = taken.reused { return reused }
        let folder = root.appending(path: "push-\(taken.number)", directoryHint: .isDirectory)
        return (try? FolderCreation.make(folder)) != nil ? folder : nil
    }

    /// Empties `folder` for the next push, or removes it once no push will take it; one that cannot be emptied is
    /// left to the workspace's removal.
    package func giveBack(_ folder: URL) {
        guard Self.empty(folder) else { return }
        let kept = state.withLock { state in
            let wanted = state.takersLeft.map { $0 > 0 } ?? true
            if wanted { state.free.append(folder) }
            return wanted
        }
        if !kept { Self.removeEmptied(folder) }
    }

    /// Removes an emptied folder: the store's empty folders, then the folder. Whatever is in the way (a link where
    /// a folder was) is left to the workspace's removal.
    private static func removeEmptied(_ folder: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            rmdir(folder.appending(path: name).path)
        }
        rmdir(folder.path)
    }

    /// Removes everything in `folder` but the attachment store's folders, which are emptied. Never follows a
    /// symbolic link: an extension may have left one anywhere in its folder.
    static func empty(_ folder: URL) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        return names.allSatisfy { name in
            let entry = folder.appending(path: name)
            if ExtensionContext.isAttachmentStoreFolder(name), isFolder(entry) {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: entry.path)) ?? []
                return files.allSatisfy { remove(entry.appending(path: $0)) }
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
