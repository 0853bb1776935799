import Foundation
import NSEConcurrency
import NSEPipeline
import NSEReports
import Synchronization
import NSEPush
import NSEMedia

/// What the user sees while a batch runs: a redrawn progress line on a terminal, one line per file (in input
/// order) when output goes to a pipe or a file, or nothing.
final class BatchProgress: Sendable {
    enum Mode: Sendable {
        /// `[#####.....] 412/1000  3 failed  85.2/s  ETA 7 s` on stderr, redrawn in place.
        case bar
        /// One line per push on stdout, in input order, as soon as it and every push before it are done.
        case lines
        case silent
    }

    private struct State {
        var done = 0
        var failed = 0
        /// Finished entries waiting for an earlier push before their line is printed.
        var waiting: [Int: BatchEntry] = [:]
        var nextLine = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
        var finished = false
    }

    private let total: Int
    private let mode: Mode
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    /// Redraws the bar while nothing finishes (a slow download), so the rate and ETA stay true.
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// The lines printed for each push in `.lines` mode (none is fine).
    private let lines: @Sendable (BatchEntry) -> [String]

    init(total: Int, mode: Mode, lines: @escaping @Sendable (BatchEntry) -> [String] = { [BatchTextRenderer().line(for: $0)] }) {
        self.total = total
        self.mode = mode
        self.lines = lines
        guard mode == .bar else { return }
        ticker.withLock { ticker in
            ticker = Task { [weak self] in
                while (try? await Task.sleep(for: .milliseconds(500))) != nil {
                    self?.draw(force: true)
                }
            }
        }
    }

    func record(_ index: Int, _ entry: BatchEntry) {
        switch mode {
        case .silent:
            return
        case .lines:
            let ready: [BatchEntry] = state.withLock { state in
                state.waiting[index] = entry
                var ready: [BatchEntry] = []
                while let next = state.waiting.removeValue(forKey: state.nextLine) {
                    ready.append(next)
                    state.nextLine += 1
                }
                return ready
            }
            guard !ready.isEmpty else { return }
            Self.write(ready.flatMap(lines).map { $0 + "\n" }.joined(), to: FileHandle.standardOutput)
        case .bar:
            state.withLock { state in
                state.done += 1
                if !entry.passed { state.failed += 1 }
            }
            draw(force: false)
        }
    }

    /// Prints the lines still waiting (an interrupted batch leaves gaps) or clears the bar.
    func finish() {
        ticker.withLock { $0?.cancel() }
        let leftover: [BatchEntry] = state.withLock { state in
            state.finished = true
            let entries = state.waiting.sorted { $0.key < $1.key }.map(\.value)
            state.waiting = [:]
            return entries
        }
        switch mode {
        case .lines:
            Self.write(leftover.flatMap(lines).map { $0 + "\n" }.joined(), to: FileHandle.standardOutput)
        case .bar:
            Self.write("\r\u{1B}[K", to: FileHandle.standardError)
        case .silent:
            break
        }
    }

    private func draw(force: Bool) {
        let now = ContinuousClock.now
        let snapshot: (done: Int, failed: Int)? = state.withLock { state in
            guard !state.finished, force || state.lastDraw.duration(to: now) >= .milliseconds(100) else { return nil }
            state.lastDraw = now
            return (state.done, state.failed)
        }
        guard let (done, failed) = snapshot else { return }
        let seconds = Double(started.duration(to: now).components.seconds) + Double(started.duration(to: now).components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : width
        var line = "\r\u{1B}[K[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        line += " \(done)/\(total)"
        if failed > 0 { line += "  \(failed) failed" }
        line += String(format: "  %.1f/s", rate)
        if rate > 0, done < total {
            line += "  ETA \(Self.duration(Double(total - done) / rate))"
        }
        Self.write(line, to: FileHandle.standardError)
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(saturating: seconds.rounded(.up))
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    private static func write(_ text: String, to handle: FileHandle) {
        guard !text.isEmpty else { return }
        try? handle.write(contentsOf: Data(text.utf8))
    }
}

/// Ctrl-C (SIGINT) and SIGTERM: the first cancels the batch, which ends cleanly; a second one exits at once.
///
/// One that came before (the worker catches them from its start, `TerminationSignals`) is handled as soon as this
/// exists: the batch then stops at once.
final class Interruption: Sendable {
    private final class Received: Sendable {
        let signal = Mutex<Int32?>(nil)
    }

    private let received = Received()

    /// The signal that interrupted the batch, if one did.
    var signal: Int32? { received.signal.withLock { $0 } }

    init(onInterrupt: @escaping @Sendable () -> Void) {
        TerminationSignals.handle { [received] number in
            let first = received.signal.withLock { received in
                defer { if received == nil { received = number } }
                return received == nil
            }
            guard first else { exit(128 + number) }
            let name = number == SIGINT ? "Interrupted" : "Terminated"
            try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K\(name): stopping; results already saved stay (again to quit at once).\n".utf8))
            onInterrupt()
        }
    }

    /// Signals from now on are ignored: the batch is over and its reports are being written.
    func stopListening() {
        TerminationSignals.ignore()
    }
}

/// `--format json`: each result on one line of stdout as it completes; results finish concurrently, the lock
/// keeps their lines whole.
final class JSONLinesOutput: Sendable {
    // Guards no field: it keeps one line's write to stdout from interleaving with another's.
    private let lock = Mutex(())
    private let renderer = JSONLinesRenderer()

    func write(_ result: ProcessResult) {
        let line = renderer.render(result) + "\n"
        lock.withLock { _ in try? FileHandle.standardOutput.write(contentsOf: Data(line.utf8)) }
    }
}
