import Foundation
import CImageFixtures
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import OneSignalExtension
import Testing
import UserNotifications

/// OneSignal's documented extension (SDK 5), as the Xcode target's NotificationService.swift holds it.
class OneSignalService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var receivedRequest: UNNotificationRequest!
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.receivedRequest = request
        self.contentHandler = contentHandler
        self.bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        if let bestAttemptContent = bestAttemptContent {
            OneSignalExtension.didReceiveNotificationExtensionRequest(self.receivedRequest, with: bestAttemptContent, withContentHandler: self.contentHandler)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            OneSignalExtension.serviceExtensionTimeWillExpireRequest(self.receivedRequest, with: self.bestAttemptContent)
            contentHandler(bestAttemptContent)
        }
    }
}

/// OneSignal's helper, with payloads as OneSignal's servers send them (`custom` + top-level `att`, or `os_data`),
/// against a real loopback server and the real codecs.
struct OneSignalTests {
    static let png: [UInt8] = {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-onesignal-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        guard file.path.withCString({ cimagefixtures_write_png($0, 40, 30, 0, 1) }) == 0,
              let data = FileManager.default.contents(atPath: file.path) else { return [] }
        return Array(data)
    }()

    /// A payload in OneSignal's original format: `att` at the top level, `i` and `badge_inc` in `custom`.
    static func payload(att: String, custom: String = #""i": "5c2a1f0e-8d3b-4c6a-9e7f-1b2c3d4e5f60""#, aps: String = "", extra: String = "") -> String {
        #"{"aps": {"alert": {"title": "Sale", "body": "Today"}, "mutable-content": 1\#(aps)}, "custom": {\#(custom)}, "att": \#(att)\#(extra)}"#
    }

    static func harness(_ server: LoopbackHTTPServer?, budget: Duration = .seconds(5)) -> ExtensionHarness {
        var harness = ExtensionHarness(hostMapping: server.flatMap { URL(string: $0.baseURL) }.map(MediaHostMapping.init(origin:)))
        harness.profile.timeBudget = budget
        harness.expiryGrace = .milliseconds(300)
        harness.measuresMemory = false
        return harness
    }

    @Test func anImageInAttIsDownloadedAndShownWithItsKeyAsIdentifier() async throws {
        let server = try LoopbackHTTPServer { _ in .ok(Self.png, contentType: "image/png") }
        defer { server.stop() }

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com/img/sale.png"}"#))

        #expect(delivered.outcome == .modified, "\(delivered.diagnostics)")
        #expect(delivered.imageShown)
        let attachment = try #require(delivered.content.attachments.first)
        #expect(attachment.type == "public.png")
        #expect(delivered.result.content?.attachments.first?.identifier == "id")
        #expect(delivered.activity.requests.map(\.url) == ["https://cdn.example.com/img/sale.png"])
        #expect(delivered.activity.requests.first?.api == "OneSignal data task")
    }

    @Test func theNewerOSDataFormatIsReadToo() async throws {
        let server = try LoopbackHTTPServer { _ in .ok(Self.png, contentType: "image/png") }
        defer { server.stop() }
        let payload = #"{"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "os_data": {"i": "abc", "att": {"id": "https://cdn.example.com/a.png"}, "buttons": [{"i": "go", "n": "Go"}]}}"#

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: payload)

        #expect(delivered.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.content.categoryIdentifier == "__onesignal__dynamic__abc")
    }

    struct TypeCase: Sendable, CustomTestStringConvertible {
        var path: String
        var contentType: String
        /// The type shown, or nil when OneSignal finds no allowed file extension.
        var shown: String?
        var testDescription: String { "\(path) served as \(contentType)" }
    }

    /// `getSupportedFileExtensionFromURL:mimeType:`: `filename` query, OneSignal's MIME table, the path's
    /// extension (as written), any query value; only the allowed extensions.
    @Test(arguments: [
        TypeCase(path: "/banner?filename=banner.png", contentType: "application/octet-stream", shown: "public.png"),
        TypeCase(path: "/banner", contentType: "image/png", shown: "public.png"),
        TypeCase(path: "/banner.png", contentType: "application/octet-stream", shown: "public.png"),
        TypeCase(path: "/banner?v=2&name=banner.png", contentType: "application/octet-stream", shown: "public.png"),
        TypeCase(path: "/banner.gif", contentType: "image/png", shown: "public.png"),
        TypeCase(path: "/banner", contentType: "application/octet-stream", shown: nil),
        TypeCase(path: "/banner.PNG", contentType: "application/octet-stream", shown: nil),
        TypeCase(path: "/banner.webp", contentType: "image/webp", shown: nil),
        TypeCase(path: "/banner", contentType: "image/x-png", shown: nil),
    ])
    func theFileTypeFollowsOneSignalsOrderOfRules(_ rule: TypeCase) async throws {
        let server = try LoopbackHTTPServer { _ in .ok(Self.png, contentType: rule.contentType) }
        defer { server.stop() }

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com\#(rule.path)"}"#))

        #expect(delivered.content.attachments.first?.type == rule.shown, "\(delivered.diagnostics)")
        if rule.shown == nil {
            #expect(delivered.outcome == .modifiedWithoutAttachment)
            #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalUnsupportedType && $0.severity == .error })
        }
    }

    @Test func aNotFoundPageIsSavedAsTheImageAndDroppedByTheSystem() async throws {
        let server = try LoopbackHTTPServer { _ in .notFound }
        defer { server.stop() }

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com/img/gone.jpg"}"#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.contains { $0.code == .mediaHTTPStatus })
        // OneSignal checks no status: the page is saved as .jpg and the system's content check refuses it.
        #expect(delivered.diagnostics.contains { $0.code == .mediaTypeMismatch || $0.code == .mediaCorrupt })
    }

    @Test func plainHTTPIsBlockedAndTheItemSkipped() async throws {
        let delivered = try await Self.harness(nil).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "http://cdn.example.com/img/sale.png"}"#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.contains { $0.code == .mediaInsecureURL })
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalAttachmentSkipped })
    }

    @Test func aConnectionFailureSkipsTheItem() async throws {
        let closed = try LoopbackHTTPServer { _ in .notFound }
        closed.stop()

        let delivered = try await Self.harness(closed).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com/img/sale.png"}"#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.contains { $0.code == .mediaNetwork })
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalAttachmentSkipped })
    }

    @Test(.timeLimit(.minutes(1)))
    func aContentLengthOver50MillionBytesIsSkipped() async throws {
        let body = [UInt8](repeating: 0, count: 50_000_001)
        let server = try LoopbackHTTPServer { _ in .ok(body, contentType: "video/mp4") }
        defer { server.stop() }
        // With 2^20-byte megabytes the movie limit is 52,428,800 bytes: only OneSignal's own limit stops this file.
        var harness = Self.harness(server)
        harness.profile.megabyte = 1_048_576

        let delivered = try await harness.run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com/show.mp4"}"#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        let finding = try #require(delivered.diagnostics.first { $0.code == .sdkOneSignalTooLarge })
        #expect(finding.message.contains("50000001 bytes"))
    }

    @Test(.timeLimit(.minutes(1)))
    func onTimeOutTheBestAttemptHasTheButtonsButNoImage() async throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .stall) }
        defer { server.stop() }
        let payload = Self.payload(att: #"{"id": "https://cdn.example.com/slow.png"}"#, extra: #", "buttons": [{"i": "shop", "n": "Shop now"}]"#)

        let delivered = try await Self.harness(server, budget: .seconds(1)).run(OneSignalService.self, payload: payload)

        #expect(delivered.outcome == .bestAttempt)
        #expect(!delivered.imageShown)
        #expect(delivered.content.attachments.isEmpty)
        #expect(delivered.content.categoryIdentifier == "__onesignal__dynamic__5c2a1f0e-8d3b-4c6a-9e7f-1b2c3d4e5f60")
        #expect(delivered.diagnostics.contains { $0.code == .extensionTimeExpired })
        #expect(delivered.diagnostics.filter { $0.code == .sdkOneSignalButtons }.count == 1)
    }

    @Test(arguments: [(3, 3), (-2, 0), (0, 7)])
    func badgeIncrementAddsToTheCachedCountNeverBelowZero(increment: Int, badge: Int) async throws {
        let payload = Self.payload(att: "null", custom: #""i": "n1", "badge_inc": \#(increment)"#, aps: #", "badge": 7"#)

        let delivered = try await Self.harness(nil).run(OneSignalService.self, payload: payload)

        #expect(delivered.content.badge?.intValue == badge)
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalBadge } == (increment != 0))
    }

    @Test func badgeIncrementStartsFromTheCountCachedInTheAppGroup() async throws {
        let seed = FileManager.default.temporaryDirectory.appendingPathComponent("nse-onesignal-seed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: seed) }
        let preferences = seed.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let plist = try PropertyListSerialization.data(fromPropertyList: ["onesignalBadgeCount": 4], format: .xml, options: 0)
        try plist.write(to: preferences.appendingPathComponent("group.com.example.shop.onesignal.plist"))
        var harness = Self.harness(nil)
        harness.containerSeed = seed

        let delivered = try await harness.run(OneSignalService.self, payload: Self.payload(att: "null", custom: #""i": "n1", "badge_inc": 1"#))

        #expect(delivered.content.badge?.intValue == 5)
        #expect(delivered.diagnostics.first { $0.code == .sdkOneSignalBadge }?.message.contains("group.com.example.shop.onesignal.plist") == true)
    }

    @Test func buttonsBecomeADynamicCategoryWithTwoActionsReversed() async throws {
        let payload = Self.payload(att: "null", extra: #", "buttons": [{"i": "view", "n": "View"}, {"i": "later", "n": "Later"}, {"i": "ignored"}]"#)

        let delivered = try await Self.harness(nil).run(OneSignalService.self, payload: payload)

        #expect(delivered.content.categoryIdentifier == "__onesignal__dynamic__5c2a1f0e-8d3b-4c6a-9e7f-1b2c3d4e5f60")
        let note = try #require(delivered.diagnostics.first { $0.code == .sdkOneSignalButtons })
        #expect(note.message.contains(#""Later" (later), "View" (view)"#))
    }

    @Test func aCategoryInThePayloadWins() async throws {
        let payload = Self.payload(att: "null", aps: #", "category": "SHOP""#, extra: #", "buttons": [{"i": "view", "n": "View"}]"#)

        let delivered = try await Self.harness(nil).run(OneSignalService.self, payload: payload)

        #expect(delivered.content.categoryIdentifier == "SHOP")
    }

    @Test func severalAttachmentsAreAllAttachedAndAFailedOneSkipped() async throws {
        let server = try LoopbackHTTPServer { request in
            request.path.hasSuffix(".webp") ? .ok([0x52, 0x49, 0x46, 0x46], contentType: "image/webp") : .ok(Self.png, contentType: "image/png")
        }
        defer { server.stop() }
        let att = #"{"a": "https://cdn.example.com/1.png", "b": "https://cdn.example.com/2.webp", "c": "https://cdn.example.com/3.png"}"#

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: Self.payload(att: att))

        #expect(delivered.imageShown)
        #expect(delivered.result.content?.attachments.map(\.identifier) == ["a", "c"])
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalUnsupportedType && $0.message.contains("`att.b`") })
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalAssumption })
    }

    @Test func anAttThatIsNotADictionaryIsReported() async throws {
        let delivered = try await Self.harness(nil).run(OneSignalService.self, payload: Self.payload(att: #""https://cdn.example.com/1.png""#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.contains { $0.code == .sdkOneSignalInvalidAttachments })
    }

    @Test func theDeliveryReceiptIsRecordedNeverSent() async throws {
        let server = try LoopbackHTTPServer { _ in .ok(Self.png, contentType: "image/png") }
        defer { server.stop() }

        let delivered = try await Self.harness(server).run(OneSignalService.self, payload: Self.payload(att: #"{"id": "https://cdn.example.com/1.png"}"#))

        let receipt = try #require(delivered.diagnostics.first { $0.code == .sdkOneSignalReceipt })
        #expect(receipt.severity == .info)
        #expect(receipt.message.contains("notifications/5c2a1f0e-8d3b-4c6a-9e7f-1b2c3d4e5f60/report_received"))
        #expect(!delivered.activity.requests.contains { $0.url.contains("onesignal.com") })
    }

    @Test func theCommandLinesBuiltInRunsOneSignalsHelperWhenThePayloadIsOneSignals() async throws {
        let server = try LoopbackHTTPServer { _ in .ok(Self.png, contentType: "image/png") }
        defer { server.stop() }
        let pipeline = Pipeline(changes: ContentChanges(titleSuffix: " [modified]"), hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        let push = try PushReader.parse(Data(Self.payload(att: #"{"id": "https://cdn.example.com/1.png"}"#).utf8), fileExtension: "json")

        let result = await pipeline.run(push, input: "onesignal.json")

        #expect(result.helper?.sdk == .onesignal)
        #expect(result.helper?.selection == .detected)
        #expect(result.imageShown, "\(result.diagnostics)")
        #expect(result.content?.title == "Sale [modified]")
    }
}
