import Foundation
import NSEPush

/// Runs accepted pushes through their phone's pipeline in the background, after the sender has its answer, and
/// records what each phone shows. Nothing here runs on an event loop: the pipeline's blocking work (downloads,
/// decoding, the extension) is on NSEKit's own threads, awaited from a task.
struct Deliveries: Sendable {
    let state: ServeState
    let pipeline: PhonePipeline
    /// Pipeline runs at once: a flood of accepted pushes waits here (pending, in the journal) instead of starting
    /// thousands of extension runs together, each with its downloads and threads.
    let gate = AsyncGate(width: 32)

    func start(seq: Int, generation: Int, push: ReceivedPush, device: DeviceEntry, input: String) {
        Task.detached { [gate] in
            await gate.enter()
            await run(seq: seq, generation: generation, push: push, device: device, input: input)
            await gate.leave()
        }
    }

    func run(seq: Int, generation: Int, push: ReceivedPush, device: DeviceEntry, input: String) async {
        // Made by the pipeline when it saves an attachment (AtomicFile.move makes the folder): most pushes keep
        // none, and making then removing an empty folder for each was a tenth of the server's CPU.
        let folder = state.dataDirectory.appending(path: "attachments/\(seq)", directoryHint: .isDirectory)
        let result = await pipeline.deliver(push, to: device, input: input, attachments: folder)
        var delivery = Data(#"{"phone":"#.utf8)
        delivery.append(ServeState.encode(PhoneDisplay.describe(result, device: device)))
        delivery.append(contentsOf: Array(#","result":"#.utf8))
        delivery.append(PhonePipeline.json(result))
        delivery.append(contentsOf: Array("}".utf8))
        await state.delivered(seq: seq, generation: generation, delivery: delivery)
    }
}

/// At most `width` holders at once; the others wait in arrival order.
actor AsyncGate {
    private let width: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The first waiter not yet resumed: taking from the front costs nothing however many wait.
    private var head = 0

    init(width: Int) {
        self.width = width
    }

    func enter() async {
        guard holders >= width else {
            holders += 1
            return
        }
        // The place is handed over by leave(), so holders stays counted.
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        guard head < waiting.count else {
            holders -= 1
            return
        }
        let next = waiting[head]
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        next.resume()
    }
}
