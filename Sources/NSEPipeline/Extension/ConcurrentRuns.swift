import Foundation
import Synchronization

/// The pushes this process's emulators are working on at once. Resident memory is process-wide, so a run's
/// memory growth is only that run's when it had the process to itself: a run can check whether it did, or ask
/// to have it (waiting until no other run is in progress, then holding new ones back until it is done).
public final class ConcurrentRuns: @unchecked Sendable {
    /// Every emulator of the process registers here.
    public static let shared = ConcurrentRuns()

    // `lock` guards every field below.
    private let lock = Mutex(())
    private var active = 0
    private var exclusiveActive = false
    /// Runs admitted since the process started: a run that sees it unchanged at its end was not overlapped.
    private var admitted = 0
    /// Runs waiting to start, in arrival order. Runs that need not be alone wait only while an exclusive run is
    /// in progress: one waiting for the process to empty does not hold the others up (a batch in progress keeps
    /// its pace), at the price that it waits for a quiet moment.
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    package init() {}

    /// Starts a run; an `exclusive` one waits until no other run is in progress.
    public func enter(exclusive: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admittedNow: Bool = lock.withLock { _ in
                guard canAdmit(exclusive: exclusive), !exclusive || waiting.isEmpty else {
                    waiting.append((exclusive, continuation))
                    return false
                }
                admit(exclusive: exclusive)
                return true
            }
            if admittedNow { continuation.resume() }
        }
    }

    /// Ends a run started with `enter(exclusive:)`.
    public func leave(exclusive: Bool) {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock { _ in
            active -= 1
            if exclusive { exclusiveActive = false }
            var resumed: [CheckedContinuation<Void, Never>] = []
            while let next = waiting.first, canAdmit(exclusive: next.exclusive) {
                waiting.removeFirst()
                admit(exclusive: next.exclusive)
                resumed.append(next.continuation)
            }
            return resumed
        }
        resumed.forEach { $0.resume() }
    }

    private func canAdmit(exclusive: Bool) -> Bool {
        exclusive ? active == 0 : !exclusiveActive
    }

    private func admit(exclusive: Bool) {
        active += 1
        admitted += 1
        if exclusive { exclusiveActive = true }
    }

    /// A look at the runs in progress, taken by a run already started, to ask later whether it was alone.
    public struct Observation: Sendable {
        fileprivate let admitted: Int
        /// No other run was in progress when the observation was taken.
        public let aloneAtStart: Bool
    }

    public func observe() -> Observation {
        lock.withLock { _ in Observation(admitted: admitted, aloneAtStart: active == 1) }
    }

    /// True when no other run was in progress at any moment between `observation` and now.
    public func wasAlone(since observation: Observation) -> Bool {
        lock.withLock { _ in observation.aloneAtStart && admitted == observation.admitted }
    }
}
