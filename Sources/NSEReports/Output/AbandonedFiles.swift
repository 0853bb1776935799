import Foundation

/// What runs killed before they could clean up (SIGKILL, the OOM killer, a power cut) left behind: files and
/// folders named `<prefix><pid>-<anything>`, removed by a later run once that process no longer exists.
///
/// A process that still exists keeps its own, and so does one that cannot be asked (another user's, EPERM):
/// only ESRCH proves it is gone. A reused pid at worst keeps a leftover until a later run.
package enum AbandonedFiles {
    package static func remove(prefixes: [String], in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names {
            guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { continue }
            let fields = name.dropFirst(prefix.count).split(separator: "-", maxSplits: 1)
            guard fields.count == 2, let pid = pid_t(fields[0]), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appending(path: name))
        }
    }
}
