import Foundation

/// How long creating a file takes where the results go, printed before the workloads so a slow run can be told
/// from a slow nse.
///
/// On ext4 without a journal (this project's machines), a new inode is found by skipping, one by one, every inode
/// of its group freed in the last 60 s (300 s while the inode table's block is dirty). After a mass removal (the
/// end of an earlier benchmark, `make test`), every file and folder a batch makes pays for that search, and a
/// batch's CPU can double (docs/performance.md, "Reading a ratio on a noisy 2-core machine").
enum FileSystemProbe {
    static let files = 256

    /// Creates `files` empty files in a new folder under `outputs` (removed with the outputs at the end) and
    /// returns the time per file, or nil if they cannot be made.
    static func measure(in outputs: URL) -> Duration? {
        let folder = outputs.appendingPathComponent("file-system-probe")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        let started = ContinuousClock.now
        for index in 0..<files {
            let descriptor = open(folder.appendingPathComponent("\(index)").path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return nil }
            close(descriptor)
        }
        return started.duration(to: .now) / files
    }

    /// The line `make bench` prints, with a warning when file creation is slow enough to have slowed every run.
    static func report(in outputs: URL) -> String {
        guard let perFile = measure(in: outputs) else { return "file creation where the results go: could not be measured" }
        let microseconds = Int((perFile.seconds * 1e6).rounded())
        var line = "file creation where the results go: \(microseconds) µs per file"
        if microseconds >= 100 {
            line += " -- slow: many files were removed here in the last minutes (ext4 without a journal skips their inodes one by one), which slows every run below; wait five minutes and run again"
        }
        return line
    }
}
