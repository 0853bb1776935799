import Foundation
import Synchronization

/// The process's one place for blocking work: an extension's `didReceive`, a stand-in's callback, an image
/// decode, a loopback server connection, the network thread.
///
/// Why not Swift's cooperative pool: it has one thread per core (two here), so one blocking call there stalls
/// every task, the timers that judge a time budget included. Why not a thread per job: a batch runs thousands of
/// pushes, and a thread per push (or three) cost about a millisecond of CPU each and a stack each.
///
/// Workers are plain threads that are reused: a job goes to an idle worker, or to a new one when every worker
/// is busy. A job is therefore never queued behind another, so a job that blocks for ever (an extension's
/// `didReceive` that sleeps) holds up nothing but itself. Workers idle for `keepAlive` end. Work that must be
/// bounded (decoding: one per core) goes through an `ExecutorLane`; work that must happen at a time (the expiry
/// call) through `schedule(at:_:_:)`, kept by one timer thread for the whole process.
public final class BlockingExecutor: Sendable {
    /// The executor every module uses.
    public static let shared = BlockingExecutor()

    private struct State {
        var idle: [Worker] = []
        var threads = 0
        var peakThreads = 0
        var jobsRun = 0
    }

    private let state = Mutex(State())
    private let keepAlive: Duration
    private let timers = TimerThread()

    public init(keepAlive: Duration = .seconds(10)) {
        self.keepAlive = keepAlive
    }

    /// Runs `work` on a worker now: an idle one, or a new one. `name` is what `currentJobName` says meanwhile.
    public func execute(_ name: String, _ work: @escaping @Sendable () -> Void) {
        let job = Job(name: name, work: work)
        let worker: Worker? = state.withLock { state in
            state.jobsRun += 1
            if let worker = state.idle.popLast() { return worker }
            state.threads += 1
            state.peakThreads = max(state.peakThreads, state.threads)
            return nil
        }
        if let worker {
            worker.give(job)
        } else {
            startWorker(with: job)
        }
    }

    /// Runs `work` on a worker and returns its value, holding no thread of the cooperative pool meanwhile.
    public func run<Value: Sendable>(_ name: String, _ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            execute(name) { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work` on a worker at `deadline` (at once if it has passed), unless cancelled first.
    @discardableResult
    public func schedule(at deadline: ContinuousClock.Instant, _ name: String, _ work: @escaping @Sendable () -> Void) -> ScheduledJob {
        timers.add(deadline: deadline) { [self] in execute(name, work) }
    }

    /// Threads now alive, and the most alive at once since the process started.
    public var threadCounts: (current: Int, peak: Int) {
        state.withLock { ($0.threads, $0.peakThreads) }
    }

    /// The name of the job running on the calling thread, if it is one of the executor's.
    public static var currentJobName: String? {
        Thread.current.threadDictionary[jobNameKey] as? String
    }

    private static let jobNameKey = "nse.job-name"

    /// Runs `work` on the calling worker thread as the job `name` (what `currentJobName` says meanwhile).
    static func run(_ name: String, _ work: () -> Void) {
        Thread.current.threadDictionary[jobNameKey] = name
        work()
        Thread.current.threadDictionary[jobNameKey] = nil
    }

    private func startWorker(with first: Job) {
        let worker = Worker()
        let thread = Thread { [self] in
            var job: Job? = first
            while let current = job {
                Self.run(current.name, current.work)
                job = nextJob(for: worker)
            }
        }
        thread.name = "nse.worker"
        // Extensions' code and C decoders run here: the default 512 KiB of a secondary thread is too tight for
        // deep recursion, 8 MiB (the main thread's) is costly for hundreds of workers; touched pages only count.
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// The worker's next job, or nil when it stayed idle for `keepAlive` (the worker then ends).
    private func nextJob(for worker: Worker) -> Job? {
        state.withLock { $0.idle.append(worker) }
        if let job = worker.take(within: keepAlive) { return job }
        let retired: Bool = state.withLock { state in
            guard let index = state.idle.firstIndex(where: { $0 === worker }) else { return false }
            state.idle.remove(at: index)
            state.threads -= 1
            return true
        }
        // Not in the idle list any more: `execute` took it and is handing it a job right now.
        return retired ? nil : worker.take(within: nil)
    }
}

/// A job scheduled for later; `cancel()` keeps it from running if it has not started.
public final class ScheduledJob: Sendable {
    private let cancelled = Atomic(false)

    init() {}

    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

private struct Job: Sendable {
    var name: String
    var work: @Sendable () -> Void
}

/// One worker's hand-over slot. The condition variable is the executor's own: no code outside this module
/// waits on one.
private final class Worker: @unchecked Sendable {
    // `condition` guards `slot`.
    private let condition = NSCondition()
    private var slot: Job?

    func give(_ job: Job) {
        condition.lock()
        slot = job
        condition.signal()
        condition.unlock()
    }

    /// The job handed over within `timeout` (nil: however long it takes).
    func take(within timeout: Duration?) -> Job? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0.secondsValue) }
        while slot == nil {
            if let deadline {
                if !condition.wait(until: deadline), slot == nil { return nil }
            } else {
                condition.wait()
            }
        }
        defer { slot = nil }
        return slot
    }
}

/// The one thread that keeps every scheduled job's time; due jobs are handed to workers, so a slow job never
/// delays another's deadline.
private final class TimerThread: @unchecked Sendable {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var job: ScheduledJob
        var fire: @Sendable () -> Void
    }

    // `condition` guards `entries` (sorted by deadline) and `started`.
    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var started = false

    func add(deadline: ContinuousClock.Instant, fire: @escaping @Sendable () -> Void) -> ScheduledJob {
        let job = ScheduledJob()
        condition.lock()
        let index = entries.firstIndex { $0.deadline > deadline } ?? entries.count
        entries.insert(Entry(deadline: deadline, job: job, fire: fire), at: index)
        // Cancelled entries are dropped when they come due; a long batch must not keep thousands of them.
        if entries.count > 64, entries.count.isMultiple(of: 64) { entries.removeAll { $0.job.isCancelled } }
        let startNow = !started
        started = true
        condition.signal()
        condition.unlock()
        if startNow {
            let thread = Thread { [self] in loop() }
            thread.name = "nse.timers"
            thread.start()
        }
        return job
    }

    private func loop() {
        condition.lock()
        while true {
            guard let first = entries.first else {
                condition.wait()
                continue
            }
            let remaining = ContinuousClock.now.duration(to: first.deadline)
            if remaining > .zero {
                _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.secondsValue))
                continue
            }
            entries.removeFirst()
            condition.unlock()
            if !first.job.isCancelled { first.fire() }
            condition.lock()
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double (for the Foundation calls that take one).
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
