import Foundation
import CioInternalCommon
import CioMessagingPush
import CioMessagingPushAPN
import NSEHarness
import NSEMediaServer
import NSEPipeline
import Testing

/// Customer.io's documented extension.
final class CustomerIODocumentedService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPushAPN.initializeForExtension(withConfig: MessagingPushConfigBuilder(cdpApiKey: "test-key").region(.US).build())
        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}

/// An EU workspace that turned automatic metrics off, and delivers other pushes itself.
final class CustomerIOCarefulService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPushAPN.initializeForExtension(withConfig: MessagingPushConfigBuilder(cdpApiKey: "test-key").region(.EU).autoTrackPushEvents(false).build())
        if !MessagingPush.shared.didReceive(request, withContentHandler: contentHandler) {
            contentHandler(request.content)
        }
    }
}

/// An EU workspace with metrics on, without a CDP API key.
final class CustomerIOKeylessService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPushAPN.initializeForExtension(withConfig: MessagingPushConfigBuilder().region(.EU).build())
        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }
}

/// Forgets to initialize the module.
final class CustomerIOUninitializedService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }
}

/// Customer.io's helper on payloads shaped as Customer.io sends them (`CIO.push`, `CIO-Delivery-ID`,
/// `CIO-Delivery-Token`), against a loopback server.
@Suite(.timeLimit(.minutes(1)))
struct CustomerIOTests {
    private func cio(image: String? = "https://media.example.com/img/pic.jpg", delivery: Bool = true) -> String {
        let push = image.map { #""CIO": {"push": {"link": "shop://sale", "image": "\#($0)"}}"# } ?? #""CIO": {"push": {"link": "shop://sale"}}"#
        let ids = delivery ? #", "CIO-Delivery-ID": "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "CIO-Delivery-Token": "9f3c2b7e41d8a6f0""# : ""
        return SDKTestBench.payload(push + ids)
    }

    @Test func theImageReplacesTheAttachmentsAndTheMetricIsRecordedNotSent() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(CustomerIODocumentedService.self, cio())

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        let attachment = try #require(delivered.content.attachments.first)
        #expect(attachment.identifier.hasPrefix("cio_sdk_"))
        #expect(attachment.url.lastPathComponent.hasSuffix("_pic.jpg"))
        let metric = try #require(delivered.diagnostics.first(.sdkCustomerIODeliveryMetric))
        #expect(metric.severity == .info)
        #expect(metric.message.contains("https://cdp.customer.io/v1/track"))
        #expect(metric.message.contains(#""deliveryId": "RPILAgUBcRhIBqSfeiIwdIYJKxTY""#))
        // Only the image went over the network.
        #expect(bench.requestedPaths == ["/img/pic.jpg"])
        #expect(delivered.activity.handlerCalls.count == 1)
    }

    @Test func theConfigurationDecidesTheMetric() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let off = try await bench.run(CustomerIOCarefulService.self, cio())
        let keyless = try await bench.run(CustomerIOKeylessService.self, cio())

        #expect(off.imageShown)
        #expect(off.diagnostics.first(.sdkCustomerIODeliveryMetric) == nil)
        let metric = try #require(keyless.diagnostics.first(.sdkCustomerIODeliveryMetric))
        #expect(metric.severity == .warning)
        #expect(metric.message.contains("https://cdp-eu.customer.io/v1/track"))
    }

    @Test func aPushWithoutDeliveryFieldsIsNeverDeliveredByTheDocumentedExtension() async throws {
        var bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        bench.budget = .milliseconds(800)
        let documented = try await bench.run(CustomerIODocumentedService.self, cio(delivery: false))
        let careful = try await bench.run(CustomerIOCarefulService.self, cio(delivery: false))

        #expect(bench.requestedPaths.isEmpty)
        #expect(documented.outcome == .original)
        #expect(documented.diagnostics.codes.isSuperset(of: ["sdk.customerio.not-cio", "extension.time-expired", "extension.handler-not-called"]))
        #expect(documented.activity.handlerCalls.isEmpty)
        // An extension that checks the result delivers the push itself, at once.
        #expect(careful.outcome == .modified)
        #expect(careful.activity.handlerCalls.count == 1)
    }

    @Test func withoutInitializationTheContentPassesThrough() async throws {
        let bench = try SDKTestBench([:])
        let delivered = try await bench.run(CustomerIOUninitializedService.self, cio())

        #expect(delivered.outcome == .modified)
        #expect(delivered.diagnostics.first(.sdkCustomerIONotInitialized)?.severity == .warning)
        #expect(bench.requestedPaths.isEmpty)
    }

    @Test func failuresDeliverTheOriginalContent() async throws {
        let unreachable = try SDKTestBench.unreachable()
        let network = try await unreachable.run(CustomerIODocumentedService.self, cio())
        let bench = try SDKTestBench(["/img/banner": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "application/octet-stream")])
        let unnamed = try await bench.run(CustomerIODocumentedService.self, cio(image: "https://media.example.com/img/banner"))

        #expect(network.diagnostics.codes.isSuperset(of: ["media.network", "sdk.customerio.original-content"]))
        #expect(unnamed.diagnostics.codes.isSuperset(of: ["media.unrecognized-type", "sdk.customerio.original-content"]))
        for delivered in [network, unnamed] {
            #expect(!delivered.imageShown)
            #expect(delivered.content.title == "Sale")
            #expect(delivered.activity.handlerCalls.count == 1)
        }
    }

    @Test func onExpiryTheOriginalContentIsDeliveredOnce() async throws {
        var bench = try SDKTestBench(["/img/pic.jpg": ServedResponse(body: .stall)])
        bench.budget = .milliseconds(800)
        let delivered = try await bench.run(CustomerIODocumentedService.self, cio())

        #expect(delivered.outcome == .bestAttempt)
        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.codes.isSuperset(of: ["extension.time-expired", "sdk.customerio.original-content"]))
        #expect(delivered.activity.handlerCalls.count == 1)
    }

    @Test func theBuiltInMakesTheContentChangesBeforeCustomerIO() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let changes = ContentChanges(titleSuffix: " [modified]", body: "Changed")
        let shown = try await bench.runBuiltIn(.customerio, changes: changes, cio())
        let failed = try await bench.runBuiltIn(.customerio, changes: changes, cio(image: "https://media.example.com/img/none.jpg"))

        #expect(shown.imageShown)
        #expect(shown.content?.title == "Sale [modified]")
        #expect(shown.content?.body == "Changed")
        #expect(!failed.imageShown)
        #expect(failed.content?.title == "Sale [modified]")
    }
}
