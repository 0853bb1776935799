import Foundation

/// The process's file descriptors: a batch holds a socket and a file for each push in flight (two more when
/// `--media` serves them from this process), so it needs more than the common soft limit of 1024, and a kernel
/// table that already has room for them.
///
/// Why grow the table ahead: Linux grows a process's descriptor table by doubling it when a new descriptor does
/// not fit, and in a process with more than one thread every growth waits for an RCU grace period while every
/// thread that opens a file or a socket meanwhile waits too; a batch starting 256 pushes would grow it five times.
/// Grown once while the process has one thread, the same table costs microseconds.
package enum DescriptorTable {
    /// Descriptors a batch of `jobs` pushes in flight may hold at once, with `readAhead` downloads started for
    /// queued pushes (a socket and a file each) and room for the process's own.
    package static func needed(forJobs jobs: Int, readAhead: Int) -> Int {
        4 * jobs + 2 * readAhead + 256
    }

    /// Raises the soft descriptor limit to the hard one (as servers do) and grows the table to hold `count`
    /// descriptors, or as many as the limit allows. Cheap when the table is already that big.
    package static func prepare(for count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let slots = min(UInt64(max(count, 1)), UInt64(limit.rlim_cur))
        guard slots > 0 else { return }
        let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else { return }
        defer { close(probe) }
        // The lowest free descriptor at or above the last slot: never one in use, and the table grows to hold it.
        let high = fcntl(probe, F_DUPFD_CLOEXEC, Int32(clamping: slots - 1))
        if high >= 0 { close(high) }
    }
}
