import Foundation
import NSEPipeline
import NSEPush
import Synchronization

/// Runs accepted pushes through their phone's pipeline in the background, after the sender has its answer, and
/// records what each phone shows. Nothing here runs on an event loop: the pipeline's blocking work (downloads,
/// decoding, the extension) is on NSEKit's own threads, awaited from a task.
///
/// At most `width` pushes run at once. The pushes waiting for their turn are kept in memory up to `heldInMemory`;
/// past that only their sequence numbers are (as ranges, a few bytes for thousands of consecutive pushes), and
/// each is read back from the journal when its turn comes, as after a restart. So a sender that outruns the
/// pipeline grows the journal, not the server.
final class Deliveries: Sendable {
    let state: ServeState
    let pipeline: PhonePipeline
    static let width = 32
    static let heldInMemory = 1024
    private let queue = Mutex(Queue())

    private struct Job: Sendable {
        var seq: Int
        var generation: Int
        var push: PhonePipeline.CheckedPush
        var device: DeviceEntry
        var input: String
    }

    private struct Queue {
        var held: [Job] = []
        /// The first job of `held` not yet taken: taking from the front costs nothing however many wait.
        var head = 0
        /// Sequence numbers of pushes waiting in the journal only, in increasing order, as disjoint ranges.
        var stored: [ClosedRange<Int>] = []
        var workers = 0

        var heldCount: Int { held.count - head }

        mutating func store(_ seq: Int) {
            // Found by bisection: the first range that ends at or after seq - 1.
            var low = 0
            var high = stored.count
            while low < high {
                let middle = (low + high) / 2
                if stored[middle].upperBound < seq - 1 { low = middle + 1 } else { high = middle }
            }
            if low < stored.count, stored[low].contains(seq) { return }
            let joinsBelow = low < stored.count && stored[low].upperBound == seq - 1
            let aboveIndex = joinsBelow ? low + 1 : low
            let joinsAbove = aboveIndex < stored.count && stored[aboveIndex].lowerBound == seq + 1
            switch (joinsBelow, joinsAbove) {
            case (true, true):
                stored[low] = stored[low].lowerBound...stored[aboveIndex].upperBound
                stored.remove(at: aboveIndex)
            case (true, false):
                stored[low] = stored[low].lowerBound...seq
            case (false, true):
                stored[aboveIndex] = seq...stored[aboveIndex].upperBound
            case (false, false):
                stored.insert(seq...seq, at: low)
            }
        }

        /// Counts one more worker when fewer than `width` run and work waits.
        mutating func startsWorker() -> Bool {
            guard workers < Deliveries.width, heldCount > 0 || !stored.isEmpty else { return false }
            workers += 1
            return true
        }

        mutating func next() -> Next? {
            if head < held.count {
                let job = held[head]
                head += 1
                if head == held.count {
                    held.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= Deliveries.heldInMemory {
                    // Taken jobs are dropped now and then, so a queue never empty does not keep them all.
                    held.removeFirst(head)
                    head = 0
                }
                return .held(job)
            }
            if let seq = takeStored() { return .stored(seq) }
            workers -= 1
            return nil
        }

        mutating func takeStored() -> Int? {
            guard let first = stored.first else { return nil }
            if first.lowerBound == first.upperBound {
                stored.removeFirst()
            } else {
                stored[0] = (first.lowerBound + 1)...first.upperBound
            }
            return first.lowerBound
        }
    }

    private enum Next {
        case held(Job)
        case stored(Int)
    }

    init(state: ServeState, pipeline: PhonePipeline) {
        self.state = state
        self.pipeline = pipeline
    }

    /// Journals an accepted push, before its sender is answered, and delivers it.
    ///
    /// A push whose delivery waits on nothing (no extension runs, no image is downloaded:
    /// `Pipeline.ReadAhead.waitsOnNothing`) is delivered now, and its delivery journaled in the same write as the
    /// push: it is CPU work alone, so the answer waits a few microseconds more, the phone shows the push by the time
    /// the sender has its 200, and the push never waits in the queue behind a burst. Any other push is queued
    /// (`start`) and delivered after the answer.
    func accept(id: String, service: String, device: DeviceEntry, request: Data, push: PhonePipeline.CheckedPush, input: String) async throws(ServeSetupError) {
        if push.readAhead?.waitsOnNothing == true {
            let result = await pipeline.deliver(push, to: device, input: input, attachments: nil)
            _ = try await state.accept(id: id, service: service, device: device, request: request, delivery: Self.delivery(result, device: device))
            return
        }
        let accepted = try await state.accept(id: id, service: service, device: device, request: request)
        start(seq: accepted.seq, generation: accepted.generation, push: push, device: device, input: input)
    }

    /// Queues a push the sender was just answered for.
    func start(seq: Int, generation: Int, push: PhonePipeline.CheckedPush, device: DeviceEntry, input: String) {
        let startsWorker = queue.withLock { queue in
            if queue.heldCount < Self.heldInMemory {
                queue.held.append(Job(seq: seq, generation: generation, push: push, device: device, input: input))
            } else {
                queue.store(seq)
            }
            return queue.startsWorker()
        }
        if startsWorker { spawnWorker() }
    }

    /// Queues pushes the journal holds without a delivery (found pending at start): read back when their turn comes.
    func resume(seqs: [Int]) {
        let workers = queue.withLock { queue in
            for seq in seqs { queue.store(seq) }
            var started = 0
            while queue.startsWorker() { started += 1 }
            return started
        }
        for _ in 0..<workers { spawnWorker() }
    }

    private func spawnWorker() {
        Task.detached { [self] in
            while let next = queue.withLock({ $0.next() }) {
                switch next {
                case .held(let job):
                    await run(seq: job.seq, generation: job.generation, push: job.push, device: job.device, input: job.input)
                case .stored(let seq):
                    await runStored(seq)
                }
            }
        }
    }

    /// A push the journal stores and no memory holds: its request read back, then run as any other.
    private func runStored(_ seq: Int) async {
        let generation = await state.currentGeneration
        guard let record = await state.record(seq: seq), record.delivery == nil,
              let request = ServeState.object(record.request) as? [String: Any],
              let device = await state.device(key: record.device) else { return }
        let headers = (request["headers"] as? [[String]] ?? []).compactMap { pair -> (String, String)? in
            pair.count == 2 && pair[0].hasPrefix("apns-") ? (pair[0], pair[1]) : nil
        }
        let body = Array((request["body"] as? String ?? "").utf8)
        let read = record.service == "apns"
            ? PhonePipeline.apnsPush(headers: Dictionary(headers, uniquingKeysWith: { first, _ in first }), body: body)
            : PhonePipeline.fcmPush(body: body)
        guard case .success(let push) = read else { return }
        await run(seq: seq, generation: generation, push: pipeline.check(push, for: device), device: device, input: "\(record.service):\(record.id)")
    }

    func run(seq: Int, generation: Int, push: PhonePipeline.CheckedPush, device: DeviceEntry, input: String) async {
        // Made by the pipeline when it saves an attachment (AtomicFile.move makes the folder): most pushes keep
        // none, and making then removing an empty folder for each was a tenth of the server's CPU.
        let folder = state.dataDirectory.appending(path: "attachments/\(seq)", directoryHint: .isDirectory)
        let result = await pipeline.deliver(push, to: device, input: input, attachments: folder)
        await state.delivered(seq: seq, deviceKey: ServeState.key(of: device), generation: generation, delivery: Self.delivery(result, device: device))
    }

    /// A delivery as the journal keeps it: `{"phone": what the phone shows, "result": nse process's result}`.
    private static func delivery(_ result: ProcessResult, device: DeviceEntry) -> Data {
        var delivery = Data(#"{"phone":"#.utf8)
        delivery.append(PhoneDisplay.json(PhoneDisplay.view(result, device: device)))
        delivery.append(contentsOf: Array(#","result":"#.utf8))
        delivery.append(PhonePipeline.json(result))
        delivery.append(contentsOf: Array("}".utf8))
        return delivery
    }
}
