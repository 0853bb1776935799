import Synchronization

/// At most `width` of its jobs running at once on the shared executor, the others waiting in order: for work
/// that competes for the cores (image decoding, one per core) rather than waiting on something.
///
/// Why a lane and not threads of its own: one pool of threads for the process, and a decode is not held up by a
/// push whose extension blocks.
public final class ExecutorLane: Sendable {
    private struct State {
        var running = 0
        var waiting: [(name: String, work: @Sendable () -> Void)] = []
        var head = 0
    }

    public let width: Int
    private let executor: BlockingExecutor
    private let state = Mutex(State())

    public init(width: Int, executor: BlockingExecutor = .shared) {
        self.width = max(1, width)
        self.executor = executor
    }

    /// Runs `work` when fewer than `width` of the lane's jobs are running.
    public func execute(_ name: String, _ work: @escaping @Sendable () -> Void) {
        let startNow: Bool = state.withLock { state in
            guard state.running < width else {
                state.waiting.append((name, work))
                return false
            }
            state.running += 1
            return true
        }
        if startNow { start(name, work) }
    }

    /// Runs `work` in the lane and returns its value, holding no thread of the cooperative pool meanwhile.
    public func run<Value: Sendable>(_ name: String, _ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            execute(name) { continuation.resume(returning: work()) }
        }
    }

    private func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        executor.execute(name) { [self] in
            work()
            let next: (name: String, work: @Sendable () -> Void)? = state.withLock { state in
                guard state.head < state.waiting.count else {
                    state.running -= 1
                    return nil
                }
                let next = state.waiting[state.head]
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return next
            }
            if let next { start(next.name, next.work) }
        }
    }
}
