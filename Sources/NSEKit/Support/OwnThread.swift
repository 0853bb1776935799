import Foundation

/// Runs blocking work (a libcurl transfer, a full image decode) on a thread of its own and awaits its result.
///
/// Swift's cooperative pool has one thread per core (two here): blocking it would stall every other task,
/// including the timers that judge an extension's time budget.
func onOwnThread<Result: Sendable>(_ name: String, _ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: work())
        }
        thread.name = name
        thread.start()
    }
}
