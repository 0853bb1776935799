#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files (RLIMIT_NOFILE), which bounds the connections a server can hold: every
/// connection is a descriptor. Many systems start processes with a soft limit of 1024 and a far higher hard one.
public enum OpenFileLimit {
    /// The soft limit now; 1024 when it cannot be read.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (what a process may do without privileges); returns the soft
    /// limit in force afterwards.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            // Refused (a container's policy): the old limit stays, and with it fewer connections.
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 { return current }
        }
        return current
    }
}
