import Foundation

/// One run of another program: its exit status, wall time and peak resident memory (from wait4's rusage).
struct ChildRun {
    var status: Int32
    var wall: Duration
    /// ru_maxrss: the child's peak resident set, in bytes.
    var peakRSS: Int
    /// User plus system CPU time.
    var cpu: Duration
}

enum ChildProcess {
    /// Runs `arguments[0]` (looked up in PATH) with stdout and stderr sent to `output` and waits for it.
    static func run(_ arguments: [String], output: URL) throws -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let wall = started.duration(to: .now)
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let cpu = Duration.seconds(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + .microseconds(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return ChildRun(status: exitStatus, wall: wall, peakRSS: usage.ru_maxrss * 1024, cpu: cpu)
    }
}
