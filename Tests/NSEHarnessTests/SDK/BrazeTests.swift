import Foundation
import BrazeNotificationService
import NSEHarness
import NSEMediaServer
import NSEPipeline
import Testing

/// Braze's documented extension: an empty subclass of Braze's NotificationService.
final class BrazeDocumentedService: BrazeNotificationService.NotificationService {}

/// An app that forwards to `brazeHandle` and shows its own pushes unchanged, as Braze's reference shows.
final class BrazeForwardingService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        if brazeHandle(request: request, contentHandler: contentHandler) { return }
        let content = request.content.mutableCopy() as? UNMutableNotificationContent ?? UNMutableNotificationContent()
        content.title = "In-house: \(content.title)"
        contentHandler(content)
    }
}

/// Braze's helper on payloads shaped as Braze sends them (`ab.att.url` + `ab.att.type`), against a loopback server.
@Suite(.timeLimit(.minutes(1)))
struct BrazeTests {
    private func braze(url: String = "https://media.example.com/img/sale", type: String? = "jpg") -> String {
        let typeMember = type.map { #", "type": "\#($0)""# } ?? ""
        return SDKTestBench.payload(#""ab": {"c": "dGVzdA==", "att": {"url": "\#(url)"\#(typeMember)}}"#)
    }

    @Test func theImageIsSavedWithTheTypeAsSuffixAndShown() async throws {
        // An extensionless URL served as application/octet-stream: Braze names the file from `ab.att.type`.
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "application/octet-stream")])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze())

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        let attachment = try #require(delivered.content.attachments.first)
        #expect(attachment.type == "public.jpeg")
        #expect(delivered.content.title == "Sale")
        #expect(bench.requestedPaths == ["/img/sale"])
        #expect(delivered.activity.handlerCalls.count == 1)
        #expect(delivered.result.verdict == .pass)
    }

    @Test func aPNGDeclaredAsJPGIsShownWithATypeMismatchWarning() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("new-arrivals.png"), contentType: "image/png")])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze())

        #expect(delivered.imageShown)
        #expect(delivered.diagnostics.first(.mediaTypeMismatch)?.severity == .warning)
    }

    @Test func withoutATypeNothingIsDownloadedAndTheOriginalIsShown() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze(type: nil))

        #expect(bench.requestedPaths.isEmpty)
        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.first(.sdkBrazeAttachmentKeys)?.severity == .error)
        #expect(delivered.content.title == "Sale")
    }

    @Test func aTypeIOSRefusesDeliversTheOriginalContent() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("spring.webp"), contentType: "image/webp")])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze(type: "webp"))

        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.codes.isSuperset(of: ["media.unsupported-format", "sdk.braze.original-content"]))
    }

    @Test func anErrorPageIsAttachedAndDroppedByTheSystem() async throws {
        // No status check in Braze's helper: the 404 page is saved as .jpg, attached, then refused by iOS.
        let bench = try SDKTestBench([:])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze())

        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.first(.mediaHTTPStatus)?.severity == .warning)
        #expect(delivered.diagnostics.first(.mediaTypeMismatch)?.severity == .error)
        #expect(delivered.result.verdict == .fail)
    }

    @Test func aNetworkFailureDeliversTheOriginalContent() async throws {
        let bench = try SDKTestBench.unreachable()
        let delivered = try await bench.run(BrazeDocumentedService.self, braze())

        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.codes.isSuperset(of: ["media.network", "sdk.braze.original-content"]))
        #expect(delivered.activity.handlerCalls.count == 1)
    }

    @Test func plainHTTPIsBlockedByTransportSecurity() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(BrazeDocumentedService.self, braze(url: "http://media.example.com/img/sale"))

        #expect(bench.requestedPaths.isEmpty)
        #expect(delivered.diagnostics.codes.isSuperset(of: ["media.insecure-url", "sdk.braze.original-content"]))
    }

    @Test func onExpiryBrazeDeliversTheOriginalContentOnce() async throws {
        var bench = try SDKTestBench(["/img/sale": ServedResponse(body: .stall)])
        bench.budget = .milliseconds(800)
        let delivered = try await bench.run(BrazeDocumentedService.self, braze())

        #expect(delivered.outcome == .bestAttempt)
        #expect(!delivered.imageShown)
        #expect(delivered.content.title == "Sale")
        #expect(delivered.diagnostics.codes.isSuperset(of: ["extension.time-expired", "sdk.braze.original-content"]))
        // The cancelled download's callback does not deliver a second time.
        #expect(delivered.diagnostics.filter { $0.code == .sdkBrazeOriginalContent }.count == 1)
        #expect(delivered.activity.handlerCalls.count == 1)
    }

    @Test func aPushWithoutTheBrazeDictionaryIsDeliveredUnchanged() async throws {
        let bench = try SDKTestBench([:])
        let delivered = try await bench.run(BrazeDocumentedService.self, SDKTestBench.payload(#""order": "A-1""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.content.title == "Sale")
        #expect(delivered.diagnostics.first(.sdkBrazeNotBraze)?.severity == .info)
        #expect(bench.requestedPaths.isEmpty)
    }

    @Test func brazeHandleTellsBrazePushesFromTheAppsOwn() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let braze = try await bench.run(BrazeForwardingService.self, braze())
        let own = try await bench.run(BrazeForwardingService.self, SDKTestBench.payload(""))

        #expect(braze.imageShown)
        #expect(braze.content.title == "Sale")
        #expect(own.content.title == "In-house: Sale")
    }

    @Test func theBuiltInMakesTheContentChangesBeforeBraze() async throws {
        let bench = try SDKTestBench(["/img/sale": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let changes = ContentChanges(titleSuffix: " [modified]", badge: 4)
        let shown = try await bench.runBuiltIn(.braze, changes: changes, braze())
        // Braze's "original content" on failure is the request it was handed: the built-in's changes stay.
        let failed = try await bench.runBuiltIn(.braze, changes: changes, braze(type: "webp"))

        #expect(shown.imageShown)
        #expect(shown.content?.title == "Sale [modified]")
        #expect(shown.content?.badge == 4)
        #expect(!failed.imageShown)
        #expect(failed.content?.title == "Sale [modified]")
        #expect(failed.diagnostics.codes.contains("sdk.braze.original-content"))
    }
}
