import Foundation
import CImageFixtures
@testable import NSEBatch
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing

/// The HTML report's writer: cards in the order a reader wants, whatever order pushes finish in, and previews
/// reused for pushes that share an image.
struct HTMLReportWriterTests {
    static func push(_ index: Int, input: String, outcome: Outcome, image: URL?, sha256: String = "") -> CompletedPush {
        var content = NotificationContent()
        content.title = "Push \(index)"
        var diagnostics: [Diagnostic] = []
        if image != nil {
            content.attachments = [Attachment(identifier: "a", file: nil, type: "public.jpeg", bytes: 1, width: 640, height: 320, frames: 1, sha256: sha256)]
        }
        if outcome != .modified { diagnostics.append(.error(.mediaCorrupt, "broken")) }
        let result = ProcessResult(
            input: input, inputKind: .apns, extensionInvoked: true, outcome: outcome, imageShown: image != nil, content: content,
            diagnostics: diagnostics, timings: ["total": 1])
        return CompletedPush(index: index, result: result, attachmentFiles: image.map { [$0] } ?? [])
    }

    @Test func failuresComeFirstWhateverOrderPushesFinishIn() async throws {
        let folder = try TemporaryFolder()
        let writer = try HTMLReportWriter(renderer: HTMLReportRenderer(), limits: ImageDecodeLimits(), strict: false)
        // Finishing order 2, 0, 3, 1; pushes 1 and 3 fail.
        for index in [2, 0, 3, 1] {
            await writer.add(Self.push(index, input: "p\(index).json", outcome: index % 2 == 1 ? .modifiedWithoutAttachment : .modified, image: nil))
        }
        let file = folder.file("r.html")
        try writer.write(summary: BatchSummary(), to: file)
        let page = try String(contentsOf: file, encoding: .utf8)
        let order = page.components(separatedBy: "data-push=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(order == ["p1.json", "p3.json", "p0.json", "p2.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["r.html"], "no temporary file left beside it")
    }

    @Test func pushesSharingAnImageShareItsPreviews() async throws {
        let folder = try TemporaryFolder()
        let image = folder.file("a.jpg")
        try #require(image.path.withCString { cimagefixtures_write_jpeg($0, 640, 320, 80, 0, 2) } == 0)
        let writer = try HTMLReportWriter(renderer: HTMLReportRenderer(), limits: ImageDecodeLimits(), strict: false)
        await writer.add(Self.push(0, input: "a.json", outcome: .modified, image: image, sha256: "same"))
        // The file is gone by the time the second push's card is made: only a kept preview can draw it.
        try FileManager.default.removeItem(at: image)
        await writer.add(Self.push(1, input: "b.json", outcome: .modified, image: image, sha256: "same"))
        await writer.add(Self.push(2, input: "c.json", outcome: .modified, image: image, sha256: "other"))
        let file = folder.file("r.html")
        try writer.write(summary: BatchSummary(), to: file)
        let cards = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "<article").dropFirst()
        #expect(cards.map { $0.contains("<img class=\"full\"") } == [true, true, false])
        #expect(cards.last?.contains("no preview: the attachment file a.jpg could not be read") == true)
    }

    /// An Android side (`--platform android`) whose image was asked for (`imageURL`), shown or not, kept in `file`.
    static func androidPush(_ index: Int, imageURL: String?, shown: Bool, file: URL?) -> CompletedPush {
        var android = AndroidResult(
            notification: ["title": .string("Spring \(index)"), "body": .string("New colours")], data: [:], imageURL: imageURL, imageShown: shown)
        if imageURL != nil {
            android.image = AndroidImage(bytes: 1, format: .jpeg, decoded: shown, width: 640, height: 320, frames: 1, sha256: "")
            if !shown { android.diagnostics = [.error(.androidImageCorrupt, "broken")] }
        }
        var result = ProcessResult(
            input: "android-\(index).json", inputKind: .fcmV1, extensionInvoked: false, outcome: .notEmulated, imageShown: false, content: nil,
            diagnostics: [], timings: ["total": 1])
        result.android = android
        return CompletedPush(index: index, result: result, attachmentFiles: [], androidImageFile: file)
    }

    /// As Android's shade draws what the FCM SDK posts: collapsed, the image is the large icon on the right;
    /// expanded, the big picture under the text. No image is drawn when none was asked for or it failed its checks.
    @Test func anAndroidNotificationShowsItsImageAsTheShadeDoes() async throws {
        let folder = try TemporaryFolder()
        let image = folder.file("android-image.jpg")
        try #require(image.path.withCString { cimagefixtures_write_jpeg($0, 640, 320, 80, 0, 2) } == 0)
        let writer = try HTMLReportWriter(renderer: HTMLReportRenderer(), limits: ImageDecodeLimits(), strict: false)
        await writer.add(Self.androidPush(0, imageURL: "https://cdn.example.com/a.jpg", shown: true, file: image))
        await writer.add(Self.androidPush(1, imageURL: nil, shown: false, file: nil))
        await writer.add(Self.androidPush(2, imageURL: "https://cdn.example.com/a.jpg", shown: false, file: image))
        let file = folder.file("r.html")
        try writer.write(summary: BatchSummary(), to: file)
        let page = try String(contentsOf: file, encoding: .utf8)
        let cards = page.components(separatedBy: "<article").dropFirst()
        let byInput = Dictionary(uniqueKeysWithValues: cards.map { card in (String(card.split(separator: "\"")[3]), String(card)) })
        let shown = try #require(byInput["android-0.json"])
        // 2:1 is wider than 16:9: the large icon is capped at 16:9 of its 40-pixel height.
        #expect(shown.contains("<img class=\"large-icon\" alt=\"large icon\" width=\"71\" height=\"40\" src=\"data:image/jpeg;base64,"))
        #expect(shown.contains("<h2>Android, expanded</h2>"))
        #expect(shown.contains("<img class=\"picture\" alt=\"big picture\""))
        #expect(shown.contains("<div class=\"title\">Spring 0</div>"))
        #expect(!shown.contains("The iOS side was not emulated."), "with --platform android the Android notification is the drawing")
        for input in ["android-1.json", "android-2.json"] {
            let card = try #require(byInput[input])
            #expect(card.contains("<h2>Android, collapsed</h2>"), "\(input) still draws its notification")
            #expect(!card.contains("<img"), "\(input) shows no image")
            #expect(!card.contains("Android, expanded"))
        }
        #expect(byInput["android-2.json"]?.contains("image not shown: see the findings") == true)
    }

    @Test func payloadTextCannotBreakOutOfTheCard() {
        var push = Self.push(0, input: "a\"b<c>.json", outcome: .modified, image: nil)
        push.result.content?.title = "<img src=x onerror=alert(1)>"
        push.result.content?.body = "Tom & \"Jerry\" \u{1}"
        let html = HTMLReportRenderer(appName: "<b>").card(ReportCard(result: push.result, exitStatus: 0))
        #expect(html.contains("data-push=\"a&quot;b&lt;c&gt;.json\""))
        #expect(html.contains("<div class=\"title\">&lt;img src=x onerror=alert(1)&gt;</div>"))
        #expect(html.contains("Tom &amp; &quot;Jerry&quot; \u{FFFD}"))
        #expect(html.contains("<span class=\"name\">&lt;b&gt;</span>"))
        #expect(!html.contains("<img src=x"))
    }
}
