import CNSESystem
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, caught from the moment `startCatching()` returns and handed, one at a time, to the handler
/// the program sets; one that arrives while no handler is set is kept for the next handler, never lost.
///
/// Why not `DispatchSource.makeSignalSource`: on Linux, libdispatch installs its own handler later, on its thread,
/// so a signal sent after the source's `resume()` and before then met SIG_IGN (which its use requires) and was
/// discarded; it then moves each signal between threads to read it from a signalfd. `nse batch`, whose supervisor
/// relays Ctrl-C to its worker, lost a SIGINT sent 9 to 60 ms after its start in 12 of 18 tries on a quiet machine
/// and ran on for its whole time budget; on a loaded one the window is longer. Here the handler is in
/// place (sigaction) before `startCatching()` returns, it only writes the signal's number to a pipe, and one
/// thread reads the pipe and calls the handler.
///
/// A process that must not miss a signal sent before it reaches `startCatching()` is started with them blocked
/// (`ChildProcess(blockedSignals: TerminationSignals.numbers)`): the kernel keeps one pending until the reading
/// thread, which unblocks them for itself alone, takes it.
public enum TerminationSignals {
    /// The signals caught: Ctrl-C and the polite request to stop.
    public static let numbers: [Int32] = [SIGINT, SIGTERM]

    private struct State {
        var started = false
        var handler: (@Sendable (Int32) -> Void)?
        /// Signals that arrived while no handler was set, in order.
        var kept: [Int32] = []
    }

    private static let state = Mutex(State())

    /// Catches the signals from now on (idempotent). Until a handler is set, they are kept.
    public static func startCatching() {
        let start = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard start else { return }
        var ends: [Int32] = [-1, -1]
        // Should the system refuse (no descriptor left at start), the signals keep their default action, which ends
        // the process: unblocked here, so a process started with them blocked can still be stopped.
        guard csystem_pipe_cloexec(&ends) == 0 else { return unblock() }
        // The handler must never block: a full pipe (thousands of signals unread) drops the byte instead.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let failed = numbers.withUnsafeBufferPointer { csystem_catch_signals_into_pipe($0.baseAddress, Int32($0.count), ends[1]) }
        guard failed == 0 else { return unblock() }
        let readEnd = ends[0]
        let thread = Thread { readSignals(from: readEnd) }
        thread.name = "nse.signals"
        thread.start()
    }

    /// Hands every signal from now on to `handler`, on the signals' thread; signals kept meanwhile are handed to it
    /// at once, in order, on the caller's thread. Starts catching if that has not been done.
    public static func handle(with handler: @escaping @Sendable (Int32) -> Void) {
        startCatching()
        let kept = state.withLock { state in
            state.handler = handler
            defer { state.kept.removeAll() }
            return state.kept
        }
        kept.forEach(handler)
    }

    /// Catches the signals from now on and drops them: the program is ending on its own and must not be cut short.
    public static func ignore() {
        handle { _ in }
    }

    /// Unblocks the signals on the calling thread.
    private static func unblock() {
        var caught = sigset_t()
        sigemptyset(&caught)
        for number in numbers { sigaddset(&caught, number) }
        pthread_sigmask(SIG_UNBLOCK, &caught, nil)
    }

    private static func readSignals(from readEnd: Int32) {
        // Whatever this process inherited blocked, this thread takes the signals: it always exists.
        unblock()
        var byte: UInt8 = 0
        while true {
            let count = read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            let number = Int32(byte)
            let handler: (@Sendable (Int32) -> Void)? = state.withLock { state in
                if state.handler == nil { state.kept.append(number) }
                return state.handler
            }
            handler?(number)
        }
    }
}
