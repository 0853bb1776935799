import Foundation
import CImageFixtures
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing
import UserNotifications

/// The thumbnail options an extension passes reach the result as typed fields, and the HTML report draws
/// the thumbnail from them: hidden, clipped, or a chosen frame.
struct ThumbnailOptionsTests {
    private func harness() -> ExtensionHarness {
        var harness = ExtensionHarness()
        harness.profile.timeBudget = .seconds(30)
        harness.measuresMemory = false
        return harness
    }

    private func gif(_ folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("deal.gif")
        try #require(file.path.withCString { cimagefixtures_write_gif($0, 64, 64, 4, 3) } == 0)
        return file
    }

    private func run(options: String) async throws -> (DeliveredNotification, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-thumb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = try gif(folder)
        let payload = #"{"aps": {"alert": {"title": "Deal", "body": "Now"}, "mutable-content": 1}, "file": "\#(file.path)"\#(options)}"#
        return (try await harness().run(LocalFileService.self, payload: payload), folder)
    }

    @Test func clippingRectAndFrameReachTheResultAndTheThumbnail() async throws {
        let (delivered, folder) = try await run(options: #", "clip": [0.5, 0.0, 0.5, 1.0], "time": 2"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let attachment = try #require(delivered.result.content?.attachments.first)
        #expect(attachment.thumbnail == ThumbnailOptions(clippingRect: ClippingRect(x: 0.5, y: 0, width: 0.5, height: 1), time: 2))
        let json = JSONResultRenderer().render(delivered.result)
        #expect(json.contains(#""thumbnail" : {"#) && json.contains(#""time" : 2"#))

        let card = ReportCard.make(CompletedPush(index: 0, staged: delivered.result, kept: true), limits: ImageDecodeLimits(), strict: false)
        let thumbnail = try #require(card.thumbnail)
        #expect((thumbnail.width, thumbnail.height, thumbnail.frame) == (32, 64, 2), "the right half of frame 3")
        let image = try #require(card.image)
        #expect((image.width, image.height, image.frame) == (64, 64, 0), "the expanded view shows the whole image")
        let html = HTMLReportRenderer().card(card)
        #expect(html.contains("thumbnail clipped to (0.5, 0, 0.5, 1)") && html.contains("thumbnail frame 3"))
    }

    @Test func aHiddenThumbnailIsNotDrawnButTheExpandedImageIs() async throws {
        let (delivered, folder) = try await run(options: #", "hidden": true"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(delivered.result.content?.attachments.first?.thumbnail == ThumbnailOptions(hidden: true))
        let card = ReportCard.make(CompletedPush(index: 0, staged: delivered.result, kept: true), limits: ImageDecodeLimits(), strict: false)
        let html = HTMLReportRenderer().card(card)
        #expect(!html.contains("<img class=\"thumb\""))
        #expect(html.contains("<img class=\"full\""))
        #expect(html.contains("thumbnail hidden"))
    }

    @Test func optionsIOSIgnoresAreLeftOutOfTheResult() async throws {
        // A rectangle in pixels, not normalized: iOS ignores it (and the harness warns).
        let (delivered, folder) = try await run(options: #", "clip": [0.0, 0.0, 40.0, 30.0]"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(delivered.imageShown)
        #expect(delivered.result.content?.attachments.first?.thumbnail == nil)
        #expect(delivered.diagnostics.map(\.code) == [.extensionAttachmentOption])
    }
}
