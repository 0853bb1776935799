import Foundation
import NSEKit

/// Runs accepted pushes through their phone's pipeline in the background, after the sender has its answer, and
/// records what each phone shows. Nothing here runs on an event loop: the pipeline's blocking work (downloads,
/// decoding, the extension) is on NSEKit's own threads, awaited from a task.
struct Deliveries: Sendable {
    let state: ServeState
    let pipeline: PhonePipeline

    func start(seq: Int, generation: Int, push: ReceivedPush, device: DeviceEntry, input: String) {
        Task.detached {
            await run(seq: seq, generation: generation, push: push, device: device, input: input)
        }
    }

    func run(seq: Int, generation: Int, push: ReceivedPush, device: DeviceEntry, input: String) async {
        let folder = state.dataDirectory.appendingPathComponent("attachments/\(seq)", isDirectory: true)
        let attachments = (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil ? folder : nil
        let result = await pipeline.deliver(push, to: device, input: input, attachments: attachments)
        // Most pushes keep no attachment: no empty folder is left behind for them.
        if let attachments, (try? FileManager.default.contentsOfDirectory(atPath: attachments.path))?.isEmpty == true {
            try? FileManager.default.removeItem(at: attachments)
        }
        let delivery: [String: Any] = [
            "phone": PhoneDisplay.describe(result, device: device),
            "result": (try? JSONSerialization.jsonObject(with: PhonePipeline.json(result))) ?? NSNull(),
        ]
        await state.delivered(seq: seq, generation: generation, delivery: ServeState.encode(delivery))
    }
}
