import NSEConcurrency
import Synchronization
import Testing

/// Decoding goes through a lane as wide as the cores, and a session's delegate callbacks through a lane of one:
/// never more of its jobs at once than its width, none lost, one at a time in the order they came for a lane of
/// one, each known by its own name (a content handler's report says which queue called it).
@Suite struct ExecutorLaneTests {
    private enum Event: Equatable {
        case start(Int)
        case end(Int)
    }

    @Test func noMoreJobsRunAtOnceThanTheWidthAndNoneIsLost() throws {
        let lane = ExecutorLane(width: 2)
        let events = Mutex<[Event]>([])
        let bothStarted = Latch<Void>()
        let gate = Latch<Void>()
        let done = Latch<Void>()
        let jobs = 40
        let finished = Atomic(0)
        for index in 0..<jobs {
            lane.execute("job \(index)") {
                let started = events.withLock { events in
                    events.append(.start(index))
                    return events.count { if case .start = $0 { true } else { false } }
                }
                if started == 2 { bothStarted.open(()) }
                // The first two hold both places until every job has been handed to the lane.
                if index < 2 { gate.wait() }
                events.withLock { $0.append(.end(index)) }
                if finished.add(1, ordering: .relaxed).newValue == jobs { done.open(()) }
            }
        }
        try #require(bothStarted.wait(until: .now + .seconds(60)) != nil, "the lane did not start two jobs")
        gate.open(())
        try #require(done.wait(until: .now + .seconds(60)) != nil, "the lane's jobs did not all run")

        let log = events.withLock { $0 }
        var running = 0
        var peak = 0
        for event in log {
            if case .start = event { running += 1 } else { running -= 1 }
            peak = max(peak, running)
        }
        #expect(peak == 2)
        let starts = log.compactMap { event -> Int? in if case .start(let index) = event { index } else { nil } }
        #expect(starts.sorted() == Array(0..<jobs))
    }

    @Test func eachJobRunsUnderItsOwnName() throws {
        let lane = ExecutorLane(width: 1)
        let names = Mutex<[String?]>([])
        let gate = Latch<Void>()
        let done = Latch<Void>()
        // The first job holds the lane while the others queue behind it, so they run one after another.
        lane.execute("nse.first") {
            gate.wait()
            names.withLock { $0.append(BlockingExecutor.currentJobName) }
        }
        for name in ["nse.second", "nse.third", "nse.fourth"] {
            lane.execute(name) {
                names.withLock { $0.append(BlockingExecutor.currentJobName) }
                if name == "nse.fourth" { done.open(()) }
            }
        }
        gate.open(())
        try #require(done.wait(until: .now + .seconds(60)) != nil, "the lane's jobs did not all run")
        #expect(names.withLock { $0 } == ["nse.first", "nse.second", "nse.third", "nse.fourth"])
    }
}
