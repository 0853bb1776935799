import Foundation
import IterableAppExtensions
import NSEHarness
import NSEMediaServer
import NSEPipeline
import Testing

/// Iterable's documented extension: an empty subclass.
final class IterableDocumentedService: ITBNotificationServiceExtension {}

/// Iterable's helper on payloads shaped as Iterable sends them (`itbl` with campaignId, messageId,
/// attachment-url, actionButtons), against a loopback server.
@Suite(.timeLimit(.minutes(1)))
struct IterableTests {
    static let buttons = #"""
        [{"identifier": "buy", "buttonType": "default", "title": "Buy now", "openApp": true, "requiresUnlock": false},
         {"identifier": "dismiss", "buttonType": "destructive", "title": "Not interested", "openApp": false},
         {"identifier": "reply", "buttonType": "textInput", "title": "Reply", "openApp": false, "requiresUnlock": true,
          "inputTitle": "Send", "inputPlaceholder": "Your message", "actionIcon": {"iconType": "systemImage", "imageName": "bubble.left"}},
         {"buttonType": "default", "title": "No identifier"}]
        """#

    private func iterable(url: String? = "https://media.example.com/img/pic.jpg", buttons: String? = nil, messageId: String? = "msg-42", category: String? = nil) -> String {
        var members = [#""campaignId": 4711001, "templateId": 6022001, "isGhostPush": false"#]
        if let messageId { members.append(#""messageId": "\#(messageId)""#) }
        if let url { members.append(#""attachment-url": "\#(url)""#) }
        if let buttons { members.append(#""actionButtons": \#(buttons)"#) }
        var payload = SDKTestBench.payload(#""itbl": {\#(members.joined(separator: ", "))}"#)
        if let category { payload = payload.replacingOccurrences(of: #""mutable-content": 1"#, with: #""mutable-content": 1, "category": "\#(category)""#) }
        return payload
    }

    @Test func theImageIsAttachedUnderItsSuggestedNameAndTheButtonsRegistered() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(IterableDocumentedService.self, iterable(buttons: Self.buttons))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        let attachment = try #require(delivered.content.attachments.first)
        #expect(attachment.type == "public.jpeg")
        // A UUID, then the suggested file name; the identifier is the same name.
        #expect(attachment.url.lastPathComponent.hasSuffix("pic.jpg"))
        #expect(attachment.url.lastPathComponent.count == 36 + "pic.jpg".count)
        #expect(delivered.content.categoryIdentifier == "msg-42")
        let category = try #require(delivered.diagnostics.first(.sdkIterableCategory))
        #expect(category.message.contains(#""Buy now" (buy, opens the app, needs unlock)"#))
        #expect(category.message.contains(#""Not interested" (dismiss, destructive)"#))
        #expect(category.message.contains(#""Reply" (reply, needs unlock, text input)"#))
        #expect(delivered.diagnostics.first(.sdkIterableActionButton)?.severity == .warning)
        #expect(delivered.activity.log.contains { $0.message == #"setNotificationCategories("msg-42" [Buy now, Not interested, Reply])"# })
        #expect(delivered.activity.handlerCalls.count == 1)
    }

    @Test func thePayloadsOwnCategoryIsKept() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(IterableDocumentedService.self, iterable(buttons: Self.buttons, category: "FLASH_DEAL"))

        #expect(delivered.content.categoryIdentifier == "FLASH_DEAL")
        #expect(delivered.diagnostics.first(.sdkIterableCategory) == nil)
        #expect(delivered.imageShown)
    }

    @Test func withoutAMessageIdTheCategoryIsCleared() async throws {
        let bench = try SDKTestBench([:])
        let delivered = try await bench.run(IterableDocumentedService.self, iterable(url: nil, messageId: nil))

        #expect(delivered.content.categoryIdentifier == "")
        #expect(delivered.diagnostics.first(.mediaNone)?.severity == .info)
        #expect(delivered.activity.handlerCalls.count == 1)
        #expect(bench.requestedPaths.isEmpty)
    }

    @Test(arguments: [("image/jpeg", true), ("application/octet-stream", false)])
    func anExtensionlessURLDependsOnTheMIMEType(mime: String, shown: Bool) async throws {
        // iOS's suggestedFilename adds an extension for image/jpeg, none for octet-stream.
        let bench = try SDKTestBench(["/img/hero": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: mime)])
        let delivered = try await bench.run(IterableDocumentedService.self, iterable(url: "https://media.example.com/img/hero"))

        #expect(delivered.imageShown == shown)
        if !shown { #expect(delivered.diagnostics.first(.mediaUnrecognizedType)?.severity == .error) }
    }

    @Test func failuresDeliverTheBestAttemptWithItsCategory() async throws {
        let unreachable = try SDKTestBench.unreachable()
        let network = try await unreachable.run(IterableDocumentedService.self, iterable())
        let bench = try SDKTestBench([:])
        let notFound = try await bench.run(IterableDocumentedService.self, iterable())
        let notAURL = try await bench.run(IterableDocumentedService.self, SDKTestBench.payload(#""itbl": {"messageId": "msg-42", "attachment-url": 7}"#))

        #expect(network.diagnostics.first(.mediaNetwork)?.severity == .error)
        #expect(notFound.diagnostics.first(.mediaTypeMismatch)?.severity == .error)
        #expect(notAURL.diagnostics.first(.sdkIterableAttachmentURL)?.severity == .error)
        for delivered in [network, notFound, notAURL] {
            #expect(!delivered.imageShown)
            #expect(delivered.outcome == .modifiedWithoutAttachment)
            #expect(delivered.content.categoryIdentifier == "msg-42")
        }
    }

    @Test func onExpiryTheBestAttemptIsDeliveredAndTheCancelledDownloadDeliversAgain() async throws {
        var bench = try SDKTestBench(["/img/pic.jpg": ServedResponse(body: .stall)])
        bench.budget = .milliseconds(800)
        // The second call comes in the grace, from the cancelled download's completion: a grace a starved machine
        // cannot run out (the run ends when the download does).
        bench.expiryGrace = .seconds(10)
        let delivered = try await bench.run(IterableDocumentedService.self, iterable())

        #expect(delivered.outcome == .bestAttempt)
        #expect(!delivered.imageShown)
        #expect(delivered.content.categoryIdentifier == "msg-42")
        #expect(delivered.activity.handlerCalls.count == 2)
        #expect(delivered.activity.handlerCalls.first?.used == true)
        #expect(delivered.diagnostics.first(.extensionHandlerCalledTwice)?.severity == .warning)
    }

    @Test func theBuiltInMakesTheContentChangesAndKeepsTheirCategory() async throws {
        let bench = try SDKTestBench(["/img/pic.jpg": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let changed = try await bench.runBuiltIn(.iterable, changes: ContentChanges(titleSuffix: " [modified]", categoryIdentifier: "MY_CATEGORY"), iterable())
        let plain = try await bench.runBuiltIn(.iterable, iterable())

        #expect(changed.imageShown)
        #expect(changed.content?.title == "Sale [modified]")
        #expect(changed.content?.categoryIdentifier == "MY_CATEGORY")
        #expect(plain.content?.categoryIdentifier == "msg-42")
    }
}
