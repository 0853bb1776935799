import Foundation
import NSEMedia
import NSEPipeline
import NSEReports

/// The fixed results the renderers' snapshots (`Tests/Snapshots/`) are made from: a batch of bundled samples as the
/// batch runner judged them, with the timings pinned. The renderer tests read it, so they need no network; an
/// integration test runs the same batch over the loopback server and checks it still gives this file, so the
/// fixture cannot drift from what nse does.
public struct SnapshotFixture: Codable, Sendable {
    /// The samples the batch is made of (and the README's batch examples): passes, failures, warnings.
    public static let samples = [
        "jpeg-ok.json", "gif-animated-ok.json", "fcm-v1-notification-image.json", "webp.json",
        "missing-mutable-content.json", "misspelled-mutable-content.json", "lint-errors.json", "invalid-json.json",
    ]
    public static let snapshots = RepositoryFolders.root.appendingPathComponent("Tests/Snapshots")
    public static let file = snapshots.appendingPathComponent("Fixtures/batch-results.json")

    /// One push: its result and what the HTML report's card showed of its image.
    public struct Push: Codable, Sendable {
        public var result: ProcessResult
        public var image: Preview?
        public var thumbnail: Preview?
        public var previewProblem: String?

        public init(result: ProcessResult, image: Preview?, thumbnail: Preview?, previewProblem: String?) {
            self.result = result
            self.image = image
            self.thumbnail = thumbnail
            self.previewProblem = previewProblem
        }
    }

    /// A preview's shape; its bytes are the encoder's and the snapshot shows only their size class.
    public struct Preview: Codable, Sendable, Hashable {
        public var mimeType: String
        public var width: Int
        public var height: Int
        public var frame: Int

        public init(mimeType: String, width: Int, height: Int, frame: Int) {
            self.mimeType = mimeType
            self.width = width
            self.height = height
            self.frame = frame
        }
    }

    /// The batch's shared media cache figures, in sample order with one push at a time.
    public var media: SharedMediaCache.Statistics
    public var pushes: [Push]

    public init(media: SharedMediaCache.Statistics, pushes: [Push]) {
        self.media = media
        self.pushes = pushes
    }

    public var results: [ProcessResult] { pushes.map(\.result) }

    /// The batch's inputs, relative to the package root as `nse batch samples/payloads/...` names them.
    public static var inputs: [BatchInput] {
        samples.map { name in
            BatchInput(
                file: URL(fileURLWithPath: "samples/payloads/\(name)", relativeTo: RepositoryFolders.root),
                outputPath: "samples/payloads/\(name)")
        }
    }

    /// The fixture as it is stored: sorted keys, so a re-recorded file is a readable diff.
    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    public static func load() throws -> SnapshotFixture {
        try JSONDecoder().decode(SnapshotFixture.self, from: Data(contentsOf: file))
    }
}
