import Foundation
import NSEConcurrency
import NSEMedia
import NSEReports
import Synchronization

/// Keeps one push from stopping a batch, even through a crash of nse itself.
///
/// `nse batch` runs the batch in a worker process (the same executable, with `--worker-journal`) and watches it.
/// The worker journals each push as it starts and finishes. If the worker dies of a signal (a trap, a segfault,
/// the kernel's OOM killer), the pushes it had started and not finished are the suspects: each is re-run alone
/// until the one that crashes is found, and the batch runs again with that push reported as `internal.crash`
/// instead of processed. Results, report.json and JUnit then cover every push, as if nothing had happened.
/// With no crash, the cost is one process start and two small writes per push: the supervisor starts the worker
/// before it even parses the arguments and leaves everything else to it (parsing them, finding the pushes,
/// reporting a mistake in either), so a batch's first download is not held back by work done twice.
enum BatchSupervisor {
    /// Whether these are a worker's arguments (`batch ... --worker-journal FILE`), which only a supervisor gives.
    static func isWorker(_ arguments: [String]) -> Bool {
        arguments.contains { $0 == "--worker-journal" || $0.hasPrefix("--worker-journal=") }
    }

    /// Runs the worker to the end and returns the exit status `nse batch` should have.
    static func run(arguments: [String]) -> Int32 {
        // First: from here on, Ctrl-C and SIGTERM reach the worker, whenever they come.
        let relay = SignalRelay()
        defer { relay.stop() }
        let folder = journalFolder(arguments)
        // A supervisor killed with SIGKILL cannot remove its journal: the next batch does, once that process is gone.
        for place in Set([folder, FileManager.default.temporaryDirectory]) {
            AbandonedFiles.remove(prefixes: CrashJournal.prefixes, in: place)
        }
        let journal = folder.appendingPathComponent("\(CrashJournal.prefixes[0])\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: journal) }
        var crashed: [Int: String] = [:]

        while true {
            try? FileManager.default.removeItem(at: journal)
            let extra = ["--worker-journal", journal.path] + crashed.sorted { $0.key < $1.key }.flatMap { ["--worker-crashed", "\($0.key):\($0.value)"] }
            let ending = runWorker(arguments + extra, relay: relay)
            // SIGPIPE is no crash: the worker ignores it, and a reader closing the pipe says nothing about a push.
            guard case .signal(let number) = ending, ![SIGINT, SIGTERM, SIGPIPE].contains(number) else {
                return ending.status
            }
            let suspects = CrashJournal.unfinished(in: journal).filter { crashed[$0.index] == nil }
            guard !suspects.isEmpty else {
                say("nse: the batch crashed (\(signalName(number))) outside the work on any one push; the results saved so far stay.")
                return 128 + number
            }
            let names = suspects.map(\.path).joined(separator: ", ")
            say("nse: the batch crashed (\(signalName(number))) while processing \(names); finding the push that causes it.")
            // Each suspect alone, all at once, without results: only whether it crashes matters here.
            let alone = runWorkers(suspects.map { arguments + ["--worker-journal", "/dev/null", "--worker-only", String($0.index), "--jobs", "1"] }, relay: relay)
            var found = false
            for (suspect, ending) in zip(suspects, alone) {
                if case .signal(let again) = ending, again != SIGINT, again != SIGTERM {
                    crashed[suspect.index] = signalName(again)
                    found = true
                    say("nse: \(suspect.path) crashes nse (\(signalName(again))): reported as internal.crash; running the batch again without it.")
                }
            }
            if !found {
                // Nothing crashes alone (pushes that crash only together): none of them can be trusted to run.
                for suspect in suspects { crashed[suspect.index] = signalName(number) }
                say("nse: no push crashes alone; reporting \(names) as internal.crash and running the batch again without them.")
            }
        }
    }

    /// Where the journal is kept: inside `--out` when there is one (made here if missing; the worker would make
    /// it anyway), so a killed batch leaves nothing outside what the user named; else TMPDIR. The supervisor
    /// does not parse its arguments (the worker does), so `--out` is looked up by name.
    static func journalFolder(_ arguments: [String]) -> URL {
        var out: String?
        for (index, argument) in arguments.enumerated() {
            if argument == "--out", arguments.indices.contains(index + 1) {
                out = arguments[index + 1]
            } else if argument.hasPrefix("--out=") {
                out = String(argument.dropFirst("--out=".count))
            } else if argument == "--" {
                break
            }
        }
        guard let out, !out.isEmpty else { return FileManager.default.temporaryDirectory }
        let folder = URL(fileURLWithPath: out)
        guard (try? FolderCreation.make(folder)) != nil else { return FileManager.default.temporaryDirectory }
        return folder
    }

    private enum Ending {
        case exit(Int32)
        case signal(Int32)

        var status: Int32 {
            switch self {
            case .exit(let status): status
            case .signal(let number): 128 + number
            }
        }
    }

    private static func runWorker(_ arguments: [String], relay: SignalRelay) -> Ending {
        runWorkers([arguments], relay: relay, quiet: false)[0]
    }

    /// Runs workers side by side and waits for all of them; quiet ones print nothing.
    private static func runWorkers(_ argumentLists: [[String]], relay: SignalRelay, quiet: Bool = true) -> [Ending] {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let workers: [ChildProcess?] = argumentLists.map { arguments in
            do {
                return try ChildProcess(
                    executable, arguments, standardOutput: quiet ? .null : .inherit, standardError: quiet ? .null : .inherit,
                    blockedSignals: TerminationSignals.numbers)
            } catch {
                say("nse: cannot start the batch worker: \(error)")
                return nil
            }
        }
        relay.forward(to: workers.compactMap { $0 })
        defer { relay.forward(to: []) }
        return workers.map { worker in
            guard let worker else { return .exit(2) }
            switch worker.wait() {
            case .exited(let status): return .exit(status)
            case .signalled(let number): return .signal(number)
            }
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGILL: "SIGILL"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGFPE: "SIGFPE"
        case SIGTRAP: "SIGTRAP"
        case SIGKILL: "SIGKILL, perhaps the kernel's out-of-memory killer"
        default: "signal \(number)"
        }
    }
}

/// Passes Ctrl-C and SIGTERM on to the worker, which stops cleanly and exits 130 or 143 with complete results.
/// The worker has a process group of its own (`ChildProcess` makes one), so a terminal's Ctrl-C reaches
/// only this process and the worker hears it once.
///
/// Nothing is lost on the way: the signals are caught from the relay's creation (`TerminationSignals`); one that
/// comes before a worker has started is passed on as soon as one has; and a worker starts with them blocked, so
/// one passed on before it catches them waits for it instead of killing it mid-write.
private final class SignalRelay: Sendable {
    private struct State {
        var workers: [ChildProcess] = []
        /// Signals received while no worker ran, for the next ones.
        var unsent: [Int32] = []
    }

    private let state = Mutex(State())

    init() {
        // Held by the handler for the process's life: the supervisor has one relay.
        TerminationSignals.handle { [self] number in relay(number) }
    }

    private func relay(_ number: Int32) {
        let workers = state.withLock { state in
            if state.workers.isEmpty { state.unsent.append(number) }
            return state.workers
        }
        Self.send([number], to: workers)
    }

    /// The workers that now hear the signals; any received meanwhile are passed on to them at once.
    func forward(to workers: [ChildProcess]) {
        let unsent = state.withLock { state in
            state.workers = workers
            guard !workers.isEmpty else { return [Int32]() }
            defer { state.unsent.removeAll() }
            return state.unsent
        }
        Self.send(unsent, to: workers)
    }

    private static func send(_ numbers: [Int32], to workers: [ChildProcess]) {
        // ChildProcess never signals a worker it has reaped, whose process ID may be another's by now.
        for number in numbers {
            for worker in workers { worker.signal(number) }
        }
    }

    /// Signals from now on are ignored: the batch is over.
    func stop() {
        TerminationSignals.ignore()
    }
}
