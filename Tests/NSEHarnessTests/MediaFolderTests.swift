import CImageFixtures
import Foundation
import NSEHarness
import Testing
import UserNotifications

/// `ExtensionHarness(media:)`, the README's way to run an extension with no network, and what a delivered
/// notification prints: a test that names only NSEHarness's types (this file imports nothing else of nse's).
struct MediaFolderTests {
    private static func folderWithImage(at relativePath: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-media-folder-\(UUID().uuidString)")
        let file = folder.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let status = file.path.withCString { cimagefixtures_write_png($0, 40, 30, 0, 1) }
        try #require(status == 0)
        return folder
    }

    private static func payload(image: String) -> String {
        #"{"aps": {"alert": {"title": "Sale", "body": "Today"}, "mutable-content": 1}, "fcm_options": {"image": "\#(image)"}}"#
    }

    private static func harness(media: URL) -> ExtensionHarness {
        var harness = ExtensionHarness(media: media)
        harness.memoryMeasurement = .off
        return harness
    }

    @Test(.timeLimit(.minutes(1)))
    func everyHostIsServedFromTheFolderPathKept() async throws {
        let folder = try Self.folderWithImage(at: "img/pic.png")
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await Self.harness(media: folder).run(FirebaseService.self, payload: Self.payload(image: "https://cdn.example.com/img/pic.png"))

        #expect(delivered.imageShown, "\(delivered)")
        #expect(delivered.outcome == .modified)
        #expect(delivered.content.attachments.first?.type == "public.png")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFileTheFolderLacksIsNamedWithThePathLookedFor() async throws {
        let folder = try Self.folderWithImage(at: "img/pic.png")
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await Self.harness(media: folder).run(FirebaseService.self, payload: Self.payload(image: "https://cdn.example.com/img/sale.png"))

        #expect(!delivered.imageShown)
        let named = delivered.diagnostics.filter { $0.message.contains(folder.standardizedFileURL.path + "/img/sale.png") }
        #expect(named.count == 1, "\(delivered.diagnostics)")
        #expect(named.first?.code == .mediaHTTPStatus)
    }

    @Test(.timeLimit(.minutes(1)))
    func aDeliveredNotificationPrintsWhatNseProcessPrints() async throws {
        let folder = try Self.folderWithImage(at: "pic.png")
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await Self.harness(media: folder).run(FirebaseService.self, payload: Self.payload(image: "https://cdn.example.com/pic.png"))
        let printed = String(describing: delivered)

        #expect(printed.contains("OK: extension ran, image shown"), "\(printed)")
        #expect(printed.contains(#"title    "Sale [modified]""#))
        #expect(printed.contains("image    public.png 40x30"))
        #expect(printed.contains("the extension:"))
    }

    @Test(.timeLimit(.minutes(1)))
    func theDiagnosticsOfAFailurePrintToo() async throws {
        let folder = try Self.folderWithImage(at: "pic.png")
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await Self.harness(media: folder).run(FirebaseService.self, payload: Self.payload(image: "https://cdn.example.com/gone.png"))
        let printed = String(describing: delivered)

        #expect(printed.contains("FAIL"), "\(printed)")
        #expect(printed.contains("media.http-status"))
        #expect(printed.contains(folder.standardizedFileURL.path + "/gone.png"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aMediaFolderThatIsNotThereIsAnErrorBeforeTheRun() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("nse-no-such-media-\(UUID().uuidString)")
        let error = await #expect(throws: MediaFolderError.self) {
            try await Self.harness(media: missing).run(FirebaseService.self, payload: Self.payload(image: "https://cdn.example.com/pic.png"))
        }
        #expect(error?.description.contains(missing.path) == true)
    }
}
