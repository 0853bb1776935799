import Foundation
@testable import NSEBatch
import NSEMediaServer
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Synchronization
import Testing
import NSEHarness

/// The renderers' snapshot tests read fixed results (`Tests/Snapshots/Fixtures/batch-results.json`); this runs the
/// same samples through the batch runner over the loopback media server, as
/// `nse batch samples/payloads/... --media samples/media` does, and checks they still give that file, so the
/// fixture cannot drift from what nse does.
///
/// To re-record after an intended change: `NSE_RECORD_SNAPSHOTS=1 swift test --filter SnapshotFixtureTests`.
struct SnapshotFixtureTests {
    /// Runs the samples one at a time, so the media figures are the same every run; only the timings are pinned.
    static func liveFixture() async throws -> SnapshotFixture {
        let directory = MediaDirectory(root: RepositoryFolders.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { directory.respond(to: $0) }
        defer { server.stop() }
        var profile = DeviceProfile()
        // Minutes: no sample here is about expiry, and a loaded machine must not turn a download into one.
        profile.timeBudget = .seconds(300)
        let pipeline = Pipeline(device: profile, hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        var runner = BatchRunner(pipeline: pipeline, jobs: 1, outDirectory: nil)
        let collected = Mutex<[(Int, SnapshotFixture.Push)]>([])
        runner.onResult = { push in
            var pinned = push
            pinned.result.timings = pinned.result.timings.mapValues { _ in 1 }
            // The card is made while the attachment still exists, as the HTML writer does.
            let card = ReportCard.make(pinned, limits: ImageDecodeLimits(), strict: false)
            let recorded = SnapshotFixture.Push(
                result: pinned.result, image: card.image.map(shape), thumbnail: card.thumbnail.map(shape),
                previewProblem: card.previewProblem)
            collected.withLock { $0.append((push.index, recorded)) }
        }
        let report = try await runner.run(SnapshotFixture.inputs)
        let pushes = collected.withLock { $0 }.sorted { $0.0 < $1.0 }.map(\.1)
        return SnapshotFixture(media: report.summary.media, pushes: pushes)
    }

    static func shape(_ preview: AttachmentPreview) -> SnapshotFixture.Preview {
        SnapshotFixture.Preview(mimeType: preview.mimeType, width: preview.width, height: preview.height, frame: preview.frame)
    }

    /// The time limit is a hang guard: a run beside a full build took over a minute, and a batch cut short by it
    /// reads as changed results.
    @Test(.timeLimit(.minutes(5)))
    func aLiveBatchGivesTheFixturesResults() async throws {
        let live = try await Self.liveFixture().encoded()
        let file = SnapshotFixture.file
        let record = ProcessInfo.processInfo.environment["NSE_RECORD_SNAPSHOTS"] == "1"
        guard !record, let recorded = try? String(contentsOf: file, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(live.utf8).write(to: file)
            if !record { Issue.record("recorded the missing fixture \(file.lastPathComponent); check it and run again") }
            return
        }
        let actual = file.appendingPathExtension("actual")
        if recorded != live {
            try? Data(live.utf8).write(to: actual)
            Issue.record("a live batch no longer gives \(file.lastPathComponent); its results are in \(actual.path) (diff them, then re-record the fixture and the snapshots)")
        } else {
            try? FileManager.default.removeItem(at: actual)
        }
    }
}
