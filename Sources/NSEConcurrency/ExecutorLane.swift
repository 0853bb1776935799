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

    /// Runs `work`, then the lane's waiting jobs in order, on one worker: a job that ends hands its place to the
    /// next on the same thread. Why not each job on a worker of its own: every hand-over woke another thread and
    /// put this one to sleep, a wake-up and a switch per decode while hundreds waited.
    private func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        executor.execute(name) { [self] in
            var job: (name: String, work: @Sendable () -> Void)? = (name, work)
            while let current = job {
                BlockingExecutor.run(current.name, current.work)
                job = state.withLock { state in
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
            }
        }
    }
}
