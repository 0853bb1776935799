import Foundation

/// Runs blocking work (a libcurl transfer, a full image decode) on a thread of its own and awaits its result.
///
/// Swift's cooperative pool has one thread per core (two here): blocking it would stall every other task,
/// including the timers that judge an extension's time budget.
func onOwnThread<Result: Sendable>(_ name: String, _ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        startThread(name) { continuation.resume(returning: work()) }
    }
}

/// Starts `body` on a new named thread and returns at once: for work that must not wait for, or hold, a thread
/// of the cooperative pool (an extension's `didReceive`, a helper's download).
package func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        Thread.current.threadDictionary[threadNameKey] = name
        body()
    }
    thread.name = name
    thread.start()
}

private let threadNameKey = "nse.thread-name"

/// The name `startThread` gave the calling thread (Linux cuts a thread's system name to 15 bytes).
package var currentThreadName: String? {
    Thread.current.threadDictionary[threadNameKey] as? String
}
