import Foundation
import Synchronization

/// The pushes this process's pipelines are working on at once. Resident memory is process-wide, so a run's
/// memory growth is only that run's when it had the process to itself: a run can check whether it did, or ask
/// to have it (waiting until no other run is in progress, then holding new ones back until it is done).
package final class ConcurrentRuns: Sendable {
    /// Every pipeline of the process registers here.
    package static let shared = ConcurrentRuns()

    private struct State {
        var active = 0
        var exclusiveActive = false
        /// Runs admitted since the process started: a run that sees it unchanged at its end was not overlapped.
        var admitted = 0
        /// Runs waiting to start, in arrival order. Runs that need not be alone wait only while an exclusive run is
        /// in progress: one waiting for the process to empty does not hold the others up (a batch in progress keeps
        /// its pace), at the price that it waits for a quiet moment.
        var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        func canAdmit(exclusive: Bool) -> Bool {
            exclusive ? active == 0 : !exclusiveActive
        }

        mutating func admit(exclusive: Bool) {
            active += 1
            admitted += 1
            if exclusive { exclusiveActive = true }
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// Starts a run; an `exclusive` one waits until no other run is in progress.
    package func enter(exclusive: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admittedNow: Bool = state.withLock { state in
                guard state.canAdmit(exclusive: exclusive), !exclusive || state.waiting.isEmpty else {
                    state.waiting.append((exclusive, continuation))
                    return false
                }
                state.admit(exclusive: exclusive)
                return true
            }
            if admittedNow { continuation.resume() }
        }
    }

    /// Ends a run started with `enter(exclusive:)`.
    package func leave(exclusive: Bool) {
        let resumed: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.active -= 1
            if exclusive { state.exclusiveActive = false }
            var resumed: [CheckedContinuation<Void, Never>] = []
            while let next = state.waiting.first, state.canAdmit(exclusive: next.exclusive) {
                state.waiting.removeFirst()
                state.admit(exclusive: next.exclusive)
                resumed.append(next.continuation)
            }
            return resumed
        }
        resumed.forEach { $0.resume() }
    }

    /// A look at the runs in progress, taken by a run already started, to ask later whether it was alone.
    package struct Observation: Sendable {
        fileprivate let admitted: Int
        /// No other run was in progress when the observation was taken.
        package let aloneAtStart: Bool
    }

    package func observe() -> Observation {
        state.withLock { Observation(admitted: $0.admitted, aloneAtStart: $0.active == 1) }
    }

    /// True when no other run was in progress at any moment between `observation` and now.
    package func wasAlone(since observation: Observation) -> Bool {
        state.withLock { observation.aloneAtStart && $0.admitted == observation.admitted }
    }
}
