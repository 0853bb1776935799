import NSEConcurrency
import Synchronization
import Testing

/// The harness waits for the content handler and the helpers with `EventWaiters`: a wait must end at its event or
/// its deadline, whichever comes first, and hold nothing of the waiter once it has ended.
@Suite struct EventWaitersTests {
    private final class Owner: Sendable {
        let ready = Mutex(false)
    }

    @Test func aWaitEndsWhenItsConditionIsMadeTrue() async {
        let waiters = EventWaiters()
        let owner = Owner()
        async let waited: Void = waiters.wait(until: .now + .seconds(3600)) { owner.ready.withLock { $0 } }
        owner.ready.withLock { $0 = true }
        waiters.notify()
        await waited
        #expect(owner.ready.withLock { $0 })
    }

    @Test func aWaitWhoseConditionNeverHoldsEndsAtItsDeadlineNotBefore() async {
        let waiters = EventWaiters()
        let deadline = ContinuousClock.now + .milliseconds(50)
        await waiters.wait(until: deadline) { false }
        #expect(ContinuousClock.now >= deadline)
    }

    @Test func aNotificationForAnotherWaiterDoesNotEndAWait() async {
        let waiters = EventWaiters()
        let mine = Owner(), theirs = Owner()
        async let other: Void = waiters.wait(until: .now + .seconds(3600)) { theirs.ready.withLock { $0 } }
        async let waited: Void = waiters.wait(until: .now + .seconds(3600)) { mine.ready.withLock { $0 } }
        theirs.ready.withLock { $0 = true }
        waiters.notify()
        await other
        mine.ready.withLock { $0 = true }
        waiters.notify()
        await waited
        #expect(mine.ready.withLock { $0 })
    }

    /// The deadline's timer keeps only a weak reference: an ended wait holds nothing of its waiter until then (a
    /// `Task.sleep` raced against the event kept a batch's pushes of the last 30 s alive).
    @Test func anEndedWaitKeepsNothingOfItsWaiterUntilTheDeadline() async {
        let waiters = EventWaiters()
        weak var released: Owner?
        do {
            let owner = Owner()
            released = owner
            owner.ready.withLock { $0 = true }
            await waiters.wait(until: .now + .seconds(3600)) { owner.ready.withLock { $0 } }
        }
        #expect(released == nil)
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let waiters = EventWaiters()
        let task = Task { await waiters.wait(until: .now + .seconds(3600)) { false } }
        task.cancel()
        await task.value
        #expect(task.isCancelled)
    }
}
