import Foundation
import NSEConcurrency

/// One run of another program: its exit status, wall time and peak resident memory (from wait4's rusage).
struct ChildRun {
    var status: Int32
    var wall: Duration
    /// ru_maxrss: the child's peak resident set, in bytes.
    var peakRSS: Int
    /// User plus system CPU time.
    var cpu: Duration

    /// Runs `arguments[0]` (looked up in PATH) with stdout and stderr sent to `output` and waits for it.
    static func run(_ arguments: [String], output: URL) throws -> ChildRun {
        let started = ContinuousClock.now
        // In the benchmark's own process group, so a Ctrl-C of the benchmark stops what it measures too.
        let child = try ChildProcess(
            arguments[0], Array(arguments.dropFirst()), standardOutput: .file(output.path), standardError: .standardOutput,
            newProcessGroup: false)
        let termination = child.wait()
        let wall = started.duration(to: .now)
        let usage = child.resourceUsage ?? rusage()
        let status = switch termination {
        case .exited(let code): code
        case .signalled(let number): 128 + number
        }
        return ChildRun(status: status, wall: wall, peakRSS: usage.ru_maxrss * 1024, cpu: usage.cpuTime)
    }
}

extension rusage {
    /// User and system time together.
    var cpuTime: Duration {
        .seconds(ru_utime.tv_sec + ru_stime.tv_sec) + .microseconds(ru_utime.tv_usec + ru_stime.tv_usec)
    }
}
