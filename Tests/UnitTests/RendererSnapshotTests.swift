import Foundation
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// What users and CI read, asserted whole against recorded files under `Tests/Snapshots/`, so any change in
/// output is a reviewed diff. The renderers are fed fixed results (`SnapshotFixture`: bundled samples as the batch
/// runner judged them, timings pinned), so a renderer test opens no socket; `SnapshotFixtureTests` checks that a
/// live batch still gives those results.
///
/// To re-record after an intended change: `NSE_RECORD_SNAPSHOTS=1 swift test --filter "RendererSnapshotTests|SnapshotFixtureTests"`
/// (the fixture first when the results changed).
struct RendererSnapshotTests {
    static let snapshots = SnapshotFixture.snapshots

    struct Run {
        var results: [ProcessResult]
        var cards: [ReportCard]
        var inputs: [BatchInput]
        var media: SharedMediaCache.Statistics
    }

    /// The fixture as the renderers take it: each card with previews of the recorded shape (their bytes stand in
    /// for the encoder's, which the snapshot shows only as a size class).
    static func run() throws -> Run {
        let fixture = try SnapshotFixture.load()
        let cards = fixture.pushes.map { push in
            ReportCard(
                result: push.result, exitStatus: push.result.exitStatus(strict: false),
                image: push.image.map(preview), thumbnail: push.thumbnail.map(preview), previewProblem: push.previewProblem)
        }
        return Run(results: fixture.results, cards: cards, inputs: SnapshotFixture.inputs, media: fixture.media)
    }

    static func preview(_ shape: SnapshotFixture.Preview) -> AttachmentPreview {
        AttachmentPreview(mimeType: shape.mimeType, data: Data(repeating: 0xFF, count: 64), width: shape.width, height: shape.height, frame: shape.frame)
    }

    static func summary(_ run: Run, strict: Bool = false) -> BatchSummary {
        var summary = BatchSummary(results: run.results, strict: strict, elapsedMilliseconds: 1000)
        summary.jobs = 8
        summary.media = run.media
        return summary
    }

    /// Compares `text` with the recorded snapshot `name`; records it when asked to (or when it is missing).
    static func assertSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = snapshots.appendingPathComponent(name)
        let record = ProcessInfo.processInfo.environment["NSE_RECORD_SNAPSHOTS"] == "1"
        guard !record, let recorded = try? String(contentsOf: file, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            if !record { Issue.record("recorded the missing snapshot \(name); check it and run again", sourceLocation: sourceLocation) }
            return
        }
        if recorded != text {
            let actual = snapshots.appendingPathComponent(name + ".actual")
            try? Data(text.utf8).write(to: actual)
            Issue.record("\(name) differs from the recorded snapshot; the new output is in \(actual.path) (diff them)", sourceLocation: sourceLocation)
        } else {
            try? FileManager.default.removeItem(at: snapshots.appendingPathComponent(name + ".actual"))
        }
    }

    @Test func everyRendererMatchesItsSnapshot() throws {
        let run = try Self.run()
        let results = run.results
        let entries = results.map { BatchEntry($0, outputPath: $0.input) }
        let summary = Self.summary(run)

        try Self.assertSnapshot(results.map(TextResultRenderer().render).joined(separator: "\n\n") + "\n", named: "process.txt")
        try Self.assertSnapshot(JSONResultRenderer().render(results[0]) + "\n", named: "process.json")
        try Self.assertSnapshot(results.map(JSONLinesRenderer().render).joined(separator: "\n") + "\n", named: "batch.jsonl")

        let text = BatchTextRenderer()
        try Self.assertSnapshot(entries.map(text.line).joined(separator: "\n") + "\n" + text.summary(summary) + "\n", named: "batch.txt")

        let report = BatchReport(inputs: run.inputs, entries: entries, summary: summary)
        try Self.assertSnapshot(JUnitRenderer().render(report), named: "batch-junit.xml")

        let github = GitHubAnnotationRenderer()
        try Self.assertSnapshot(entries.flatMap(github.annotations).joined(separator: "\n") + "\n", named: "batch-github.txt")
        try Self.assertSnapshot(MarkdownSummaryRenderer().render(summary), named: "batch-summary.md")

        // The page itself, with each inlined image replaced by its type and size: the pixels are the encoder's.
        let renderer = HTMLReportRenderer(appName: "Shop")
        let cards = run.cards
        let ordered = HTMLReportRenderer.order(cards.enumerated().map { (index: $0.offset, exitStatus: $0.element.exitStatus, item: renderer.card($0.element)) })
        let codes = Set(results.flatMap(HTMLReportRenderer.codes(of:))).sorted()
        let page = renderer.document(summary: summary, strict: false, cards: ordered, codes: codes)
        try Self.assertSnapshot(Self.placeholdingImages(page), named: "batch-report.html")
    }

    @Test func strictFailsPushesWithWarningsEverywhere() throws {
        let run = try Self.run()
        let entries = run.results.map { BatchEntry($0, outputPath: $0.input, strict: true) }
        let summary = Self.summary(run, strict: true)
        let report = BatchReport(inputs: run.inputs, entries: entries, summary: summary)
        try Self.assertSnapshot(entries.map(BatchTextRenderer().line).joined(separator: "\n") + "\n" + BatchTextRenderer().summary(summary) + "\n", named: "batch-strict.txt")
        try Self.assertSnapshot(JUnitRenderer().render(report), named: "batch-strict-junit.xml")
        // fcm-v1-notification-image passes with a warning: --strict fails it, and nothing else changes.
        let lenient = Self.summary(run)
        #expect(summary.failed == lenient.failed + 1)
        #expect(summary.passed == lenient.passed - 1)
        #expect(summary.warnings == lenient.warnings)
    }

    /// `src="data:image/jpeg;base64,..."` becomes `src="data:image/jpeg;base64,[N bytes]"`.
    static func placeholdingImages(_ html: String) -> String {
        var output = ""
        var rest = Substring(html)
        while let start = rest.range(of: ";base64,") {
            output += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            let end = rest.firstIndex(of: "\"") ?? rest.endIndex
            let bytes = Data(base64Encoded: String(rest[..<end]))?.count ?? -1
            output += "[\(bytes < 60_000 ? "under 60 KB" : "\(bytes) bytes")]"
            rest = rest[end...]
        }
        return output + rest
    }
}
