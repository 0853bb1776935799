import Foundation

/// A fixed set of plain threads, one per core, that run the batch's image decoding.
///
/// Why not Swift's cooperative pool: a decode holds its thread for up to a second of C code, and on Linux the
/// pool (like `DispatchQueue.concurrentPerform`) was measured keeping fewer decodes running than there are
/// cores (a 2-core machine decoded a corpus in 5.6 s through it, 3.7 s on two threads of its own). Here
/// every core decodes while there is work, and the cooperative pool stays free for the light work around it.
final class DecodingThreads: Sendable {
    private let queue = WorkQueue()

    init(count: Int = ProcessInfo.processInfo.activeProcessorCount) {
        for index in 0..<max(1, count) {
            let thread = Thread { [queue] in
                while let work = queue.next() { work() }
            }
            thread.name = "nse.decode.\(index)"
            thread.start()
        }
    }

    deinit {
        queue.close()
    }

    /// Runs `work` on one of the threads and returns its value.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.add { continuation.resume(returning: work()) }
        }
    }
}

/// First in, first out; `next()` blocks until there is work or the queue is closed.
private final class WorkQueue: @unchecked Sendable {
    // Every property is guarded by `condition`.
    private let condition = NSCondition()
    private var items: [@Sendable () -> Void] = []
    private var head = 0
    private var closed = false

    func add(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        items.append(work)
        condition.signal()
        condition.unlock()
    }

    func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count, !closed { condition.wait() }
        guard head < items.count else { return nil }
        let work = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return work
    }

    /// Lets the threads end once the queued work is done.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
