import Foundation

/// The process's peak resident memory so far: `VmHWM` from /proc/self/status (Linux), nil where there is none.
///
/// Not getrusage's ru_maxrss: a process started with vfork (posix_spawn, Foundation's Process) inherits its
/// parent's peak in that figure, so a child of a large parent would be charged for it; VmHWM belongs to the
/// process's own address space.
package enum PeakMemory {
    package static func bytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}
