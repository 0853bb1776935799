import Foundation
import NSEConcurrency
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization

/// Builds the HTML report while a run goes on: each push's card (previews included) is rendered as the push
/// completes, while its attachment still exists, and appended to a spool file; `write` puts the page
/// together, failures first. Memory holds a few numbers per push, not cards or images.
package final class HTMLReportWriter: Sendable {
    private struct Spooled: Sendable {
        var index: Int
        var exitStatus: Int32
        var span: Range<UInt64>
    }

    private struct State {
        var cards: [Spooled] = []
        var codes: Set<String> = []
        /// Previews made lately, by file and thumbnail options: a campaign's pushes often share one image.
        var previews: [ReportCard.Previews.Key: ReportCard.Previews] = [:]
        var previewOrder: [ReportCard.Previews.Key] = []
    }

    /// Previews kept for reuse (each at most about 60 KB).
    private static let previewsKept = 32

    package let renderer: HTMLReportRenderer
    private let limits: ImageDecodeLimits
    private let strict: Bool
    private let spool: ResultSpool
    private let spoolFile: URL
    private let state = Mutex(State())

    /// The spool lives in the system's temporary folder until `write` or deinit.
    /// `limits`: the image checks' (`DeviceProfile.imageLimits`), which every preview's decoding keeps to.
    package init(renderer: HTMLReportRenderer, limits: ImageDecodeLimits, strict: Bool) throws {
        self.renderer = renderer
        self.limits = limits
        self.strict = strict
        spoolFile = FileManager.default.temporaryDirectory.appendingPathComponent("nse-html-\(getpid())-\(UUID().uuidString).spool")
        spool = try ResultSpool(file: spoolFile)
    }

    deinit {
        spool.close()
        try? FileManager.default.removeItem(at: spoolFile)
    }

    /// Renders the push's card (decoding its images on a thread of their own, unless a push before it had the same
    /// image and thumbnail options) and spools it.
    package func add(_ push: CompletedPush) async {
        var card = ReportCard(result: push.result, exitStatus: push.result.exitStatus(strict: strict))
        if let attachment = push.result.content?.attachments.first {
            if let file = push.attachmentFiles.first ?? nil {
                card.use(await previews(key: ReportCard.Previews.key(attachment), file: file, thumbnail: attachment.thumbnail))
            } else if let key = ReportCard.Previews.key(attachment), let kept = state.withLock({ $0.previews[key] }) {
                card.use(kept)
            } else {
                card.previewProblem = "the attachment file was not kept"
            }
        }
        if let android = push.result.android, android.imageShown, let image = android.image {
            if let file = push.androidImageFile {
                card.android = await previews(key: ReportCard.Previews.key(image), file: file, thumbnail: nil)
            } else {
                card.android = ReportCard.Previews(problem: "the image file was not kept")
            }
        }
        let html = renderer.card(card)
        // A card that cannot be spooled (disk full) is left out; `write` would fail on the same disk anyway.
        guard let span = try? spool.append(Data(html.utf8)) else { return }
        state.withLock { state in
            state.cards.append(Spooled(index: push.index, exitStatus: card.exitStatus, span: span))
            state.codes.formUnion(HTMLReportRenderer.codes(of: push.result))
        }
    }

    /// The previews of `file`: those kept for its key, else made (and kept).
    private func previews(key: ReportCard.Previews.Key?, file: URL, thumbnail: ThumbnailOptions?) async -> ReportCard.Previews {
        if let key, let kept = state.withLock({ $0.previews[key] }) { return kept }
        let limits = limits
        let previews = await BlockingExecutor.shared.run("nse.preview") { ReportCard.Previews.make(file: file, thumbnail: thumbnail, limits: limits) }
        if let key { keep(previews, for: key) }
        return previews
    }

    private func keep(_ previews: ReportCard.Previews, for key: ReportCard.Previews.Key) {
        state.withLock { state in
            guard state.previews.updateValue(previews, forKey: key) == nil else { return }
            state.previewOrder.append(key)
            if state.previewOrder.count > Self.previewsKept {
                state.previews[state.previewOrder.removeFirst()] = nil
            }
        }
    }

    /// Writes the page to `file` atomically: a temporary file beside it, then a rename.
    package func write(summary: BatchSummary, to file: URL) throws {
        let (cards, codes) = state.withLock { ($0.cards, $0.codes) }
        let ordered = HTMLReportRenderer.order(cards.map { (index: $0.index, exitStatus: $0.exitStatus, item: $0.span) })
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(renderer.head(summary: summary, strict: strict, codes: codes.sorted()).utf8))
            for span in ordered {
                try handle.write(contentsOf: spool.read(span))
            }
            try handle.write(contentsOf: Data(renderer.tail.utf8))
            try AtomicFile.move(temporary, to: file)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
