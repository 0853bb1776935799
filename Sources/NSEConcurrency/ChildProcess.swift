import CNSESystem
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Another program, started with `posix_spawn`: every command, the benchmark and the tests start children
/// through this type, never through Foundation's `Process`.
///
/// Why not `Process`: on Linux, swift-corelibs-foundation's `Process.run()` (Swift 6.3.1) copies each
/// `/proc/self/fd` entry's whole 256-byte `d_name` while listing the descriptors to close, and crashes with
/// SIGSEGV in memcpy when an entry ends at the edge of a page (swiftlang/swift-corelibs-foundation#5472; it
/// killed a CI run of this suite). It also adds one close action per descriptor number. Here the child
/// closes every inherited descriptor above 2 with one `closefrom` action.
///
/// Waiting is safe from any number of threads at once: the child is reaped exactly once, under the lock, so
/// its process ID is never signalled after it could have been reused.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case inherit
        case null
        case file(String)
    }

    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable {
        case inherit
        case null
        /// A pipe whose reading end is `standardOutput` / `standardError`.
        case pipe
        /// Created or truncated.
        case file(String)
        /// One of this process's descriptors, e.g. 2 for our own standard error.
        case descriptor(Int32)
        /// Standard error only: wherever the child's standard output goes (one pipe for both, in order).
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the signal's number: what `Process.terminationStatus` reported.
        public var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): status
            }
        }
    }

    private struct Ended {
        var termination: Termination
        var usage: rusage
    }

    public let pid: pid_t
    /// The reading end of the child's standard output, when it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The reading end of the child's standard error, when it is `.pipe`.
    public let standardError: FileHandle?
    // Guarded by itself: set once, by the thread that reaps the child.
    private let ended = Mutex<Ended?>(nil)

    /// Starts `executable` (a path; a bare name is looked up in PATH) with `arguments` (not including the
    /// program's name). `environment` nil inherits ours. `newProcessGroup` puts the child in a group of its own,
    /// as `Process` did, so a terminal's Ctrl-C reaches only this process, which decides what its children hear.
    /// `blockedSignals` start blocked in the child (none otherwise, whatever this thread blocks): one sent before
    /// the child catches it waits for it rather than kill it (`TerminationSignals`).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil,
        standardInput: Input = .inherit, standardOutput: Output = .inherit, standardError: Output = .inherit,
        newProcessGroup: Bool = true, blockedSignals: [Int32] = []
    ) throws {
        var actions = posix_spawn_file_actions_t()
        try Self.check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        try Self.check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }

        // Pipe ends: the child's end is closed here once the child has its copy; ours is kept on failure paths
        // only until this initialiser throws.
        var childEnds: [Int32] = []
        var parentEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        var keepParentEnds = false
        defer { if !keepParentEnds { parentEnds.forEach { close($0) } } }

        switch standardInput {
        case .inherit: break
        case .null: try Self.check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen")
        case .file(let path): try Self.check(posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0), "addopen")
        }
        // Our ends of the pipes, by the child's descriptor: FileHandles own them only once the child has started,
        // so a failure path closes each exactly once (a handle closing it again could close another thread's file).
        var pipes: [Int32: Int32] = [:]
        for (descriptor, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch output {
            case .inherit:
                break
            case .null:
                try Self.check(posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0), "addopen")
            case .file(let path):
                try Self.check(
                    posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644), "addopen")
            case .descriptor(let source):
                try Self.check(posix_spawn_file_actions_adddup2(&actions, source, descriptor), "adddup2")
            case .standardOutput:
                try Self.check(posix_spawn_file_actions_adddup2(&actions, 1, descriptor), "adddup2")
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard csystem_pipe_cloexec(&ends) == 0 else { throw ChildProcessError("pipe2", errno) }
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                pipes[descriptor] = ends[0]
                try Self.check(posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor), "adddup2")
            }
        }
        try Self.check(csystem_file_actions_addclosefrom(&actions, 3), "addclosefrom")
        if let currentDirectory {
            try Self.check(csystem_file_actions_addchdir(&actions, currentDirectory), "addchdir")
        }

        // The child starts with no signal blocked but those asked for, whatever the spawning thread had blocked.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in blockedSignals { sigaddset(&blocked, number) }
        try Self.check(posix_spawnattr_setsigmask(&attributes, &blocked), "setsigmask")
        // An ignored signal stays ignored across exec: a child starts with SIGPIPE at its default even when
        // this process (a test runner, an app embedding NSEKit) ignores it, as a shell would start it.
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        try Self.check(posix_spawnattr_setsigdefault(&attributes, &defaultSignals), "setsigdefault")
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            try Self.check(posix_spawnattr_setpgroup(&attributes, 0), "setpgroup")
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        try Self.check(posix_spawnattr_setflags(&attributes, Int16(flags)), "setflags")

        let argv = Self.cStrings([executable] + arguments)
        defer { argv.forEach { free($0) } }
        let environmentStrings = environment.map { Self.cStrings($0.map { "\($0.key)=\($0.value)" }) }
        defer { environmentStrings?.forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { argvPointer in
            let argvBase = UnsafePointer(argvPointer.baseAddress!)
            if let environmentStrings {
                return environmentStrings.withUnsafeBufferPointer { environmentPointer in
                    Self.spawn(&pid, executable, &actions, &attributes, argvBase, UnsafePointer(environmentPointer.baseAddress!))
                }
            }
            return Self.spawn(&pid, executable, &actions, &attributes, argvBase, UnsafePointer(environ))
        }
        guard spawned == 0 else { throw ChildProcessError("cannot start \(executable)", spawned) }
        self.pid = pid
        self.standardOutput = pipes[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.standardError = pipes[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        keepParentEnds = true
    }

    deinit {
        // A child nobody waited for is reaped if it has ended, so it does not stay a zombie.
        _ = reap(blocking: false)
    }

    /// Whether the child has not ended yet (it may have ended without being waited for).
    public var isRunning: Bool {
        ended.withLock { ended in
            guard ended == nil else { return false }
            var info = siginfo_t()
            // WNOWAIT: look, without reaping; only `reap` reaps.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
                if errno != EINTR { return false }
            }
            return info._sifields._sigchld.si_pid == 0
        }
    }

    /// Waits until the child ends; any number of threads may wait at once.
    @discardableResult
    public func wait() -> Termination {
        var info = siginfo_t()
        // Block without reaping, outside the lock, so `isRunning` and `signal` stay answerable meanwhile.
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        return reap(blocking: true)?.termination ?? .exited(-1)
    }

    /// The child's CPU time and peak resident set (wait4's rusage), once it has been waited for.
    public var resourceUsage: rusage? {
        ended.withLock { $0?.usage }
    }

    /// Sends `number` to the child, unless it has already been reaped.
    public func signal(_ number: Int32) {
        ended.withLock { ended in
            if ended == nil { _ = kill(pid, number) }
        }
    }

    /// SIGTERM.
    public func terminate() {
        signal(SIGTERM)
    }

    /// Reaps the child once; later calls return what the first found. Nil when not blocking and it still runs.
    private func reap(blocking: Bool) -> Ended? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var usage = rusage()
            while true {
                let result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
                if result == pid { break }
                if result == 0 { return nil }
                if errno == EINTR { continue }
                // ECHILD: reaped by someone else (SIGCHLD ignored); the status is lost.
                ended = Ended(termination: .exited(-1), usage: rusage())
                return ended
            }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            let signalNumber = status & 0x7F
            let termination: Termination = signalNumber == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signalNumber)
            ended = Ended(termination: termination, usage: usage)
            return ended
        }
    }

    private static func spawn(
        _ pid: inout pid_t, _ executable: String, _ actions: inout posix_spawn_file_actions_t, _ attributes: inout posix_spawnattr_t,
        _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>, _ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>
    ) -> Int32 {
        executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
            : posix_spawnp(&pid, executable, &actions, &attributes, argv, environment)
    }

    /// NUL-terminated copies and a final NULL, for argv and envp; freed by the caller.
    private static func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
        strings.map { strdup($0) } + [nil]
    }

    private static func check(_ result: Int32, _ what: String) throws {
        if result != 0 { throw ChildProcessError(what, result) }
    }
}

/// A child that could not be started, with the system's words for why.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    init(_ what: String, _ code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
    }
}
