import Foundation
import NSEConcurrency
import Synchronization

/// The time a push's run follows: the extension's deadline and the `serviceExtensionTimeWillExpire()` call at its
/// end, the harness's waits for the content handler, each transfer's deadline, and the timings of the result.
/// `SystemClock` for every command; `ManualClock` in unit tests, where time passes only as scripted responses take
/// it (`ScriptedTransport`) or the test moves it, so a budget and its expiry are tested without waiting for them.
package protocol PipelineClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Runs `work` on a worker of the blocking executor (as job `name`) at `instant` on this clock, at once if it
    /// has passed, unless the alarm is cancelled first.
    func schedule(at instant: ContinuousClock.Instant, _ name: String, _ work: @escaping @Sendable () -> Void) -> ClockAlarm
    /// Returns once `isSatisfied()` holds, `deadline` has come on this clock, or the task is cancelled. Whoever
    /// changes what `isSatisfied` reads calls `events.notify()`; `isSatisfied` runs under `events`' lock.
    func wait(on events: EventWaiters, until deadline: ContinuousClock.Instant, _ isSatisfied: @escaping @Sendable () -> Bool) async
}

/// An alarm of a `PipelineClock`: `cancel()` keeps its work from running if it has not started.
package struct ClockAlarm: Sendable {
    private let cancelAction: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    package func cancel() {
        cancelAction()
    }
}

/// The machine's continuous clock: alarms on the executor's timer thread, so a busy cooperative pool cannot delay
/// an expiry call.
package struct SystemClock: PipelineClock {
    package init() {}

    package var now: ContinuousClock.Instant { .now }

    package func schedule(at instant: ContinuousClock.Instant, _ name: String, _ work: @escaping @Sendable () -> Void) -> ClockAlarm {
        let job = BlockingExecutor.shared.schedule(at: instant, name, work)
        return ClockAlarm { job.cancel() }
    }

    package func wait(on events: EventWaiters, until deadline: ContinuousClock.Instant, _ isSatisfied: @escaping @Sendable () -> Bool) async {
        await events.wait(until: deadline, isSatisfied)
    }
}

/// A clock a unit test moves by hand: the deadlines of `ScriptedTransport`'s transfers, the extension's budget and
/// its expiry call are read on it, and time passes only as scripted responses take it or the test moves it. Moving
/// it runs the alarms it reaches (on the executor, as the system clock's timer thread does) and wakes the waits.
package final class ManualClock: PipelineClock {
    private struct Alarm {
        var instant: ContinuousClock.Instant
        var name: String
        var work: @Sendable () -> Void
    }

    private struct State {
        var now: ContinuousClock.Instant
        var alarms: [Int: Alarm] = [:]
        var nextAlarm = 0
        /// The events of the waits in progress, each with the number of waits on it.
        var watched: [ObjectIdentifier: (events: EventWaiters, waits: Int)] = [:]
    }

    private let state: Mutex<State>

    package init(at start: ContinuousClock.Instant = ManualClock.origin) {
        state = Mutex(State(now: start))
    }

    /// The continuous clock's zero, made without reading the clock: an instant's Codable form is its offset from
    /// zero. Should that form change, the clock starts at the current instant instead; no rule depends on which.
    package static let origin: ContinuousClock.Instant =
        (try? JSONDecoder().decode(ContinuousClock.Instant.self, from: Data(#"{"_value":[0,0]}"#.utf8))) ?? .now

    package var now: ContinuousClock.Instant { state.withLock { $0.now } }

    package func advance(by duration: Duration) {
        moved { $0 = $0 + duration }
    }

    /// Moves the clock to `instant`, never back.
    package func advance(to instant: ContinuousClock.Instant) {
        moved { $0 = max($0, instant) }
    }

    private func moved(_ change: (inout ContinuousClock.Instant) -> Void) {
        let (due, watched): ([Alarm], [EventWaiters]) = state.withLock { state in
            change(&state.now)
            let now = state.now
            let due = state.alarms.filter { $0.value.instant <= now }.sorted { $0.key < $1.key }
            for (id, _) in due { state.alarms[id] = nil }
            return (due.map(\.value).sorted { $0.instant < $1.instant }, state.watched.values.map(\.events))
        }
        for alarm in due { BlockingExecutor.shared.execute(alarm.name, alarm.work) }
        for events in watched { events.notify() }
    }

    package func schedule(at instant: ContinuousClock.Instant, _ name: String, _ work: @escaping @Sendable () -> Void) -> ClockAlarm {
        let id: Int? = state.withLock { state in
            guard instant > state.now else { return nil }
            defer { state.nextAlarm += 1 }
            state.alarms[state.nextAlarm] = Alarm(instant: instant, name: name, work: work)
            return state.nextAlarm
        }
        guard let id else {
            BlockingExecutor.shared.execute(name, work)
            return ClockAlarm {}
        }
        return ClockAlarm { [self] in _ = state.withLock { $0.alarms.removeValue(forKey: id) } }
    }

    /// Whether an alarm is set and not yet run: a test can tell that an expiry call is still to come.
    package var hasAlarms: Bool { state.withLock { !$0.alarms.isEmpty } }

    package func wait(on events: EventWaiters, until deadline: ContinuousClock.Instant, _ isSatisfied: @escaping @Sendable () -> Bool) async {
        let key = ObjectIdentifier(events)
        state.withLock { $0.watched[key, default: (events, 0)].waits += 1 }
        defer {
            state.withLock { state in
                state.watched[key]?.waits -= 1
                if state.watched[key]?.waits == 0 { state.watched[key] = nil }
            }
        }
        // `events` ends its own wait at a deadline on the system clock: one no test reaches. This clock's deadline
        // is part of the condition, which moving the clock makes `events` look at again.
        await events.wait(until: Self.never) { [self] in isSatisfied() || now >= deadline }
    }

    /// An instant on the system clock a test never reaches: about a century after the machine started.
    private static let never = origin + .seconds(3_000_000_000)
}
