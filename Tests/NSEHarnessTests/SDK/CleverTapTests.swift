import Foundation
import CTNotificationService
import CleverTapSDK
import NSEHarness
import NSEMediaServer
import NSEPipeline
import Testing

/// CTNotificationService's README form: a subclass that calls `super.didReceive`.
final class CleverTapDocumentedService: CTNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        super.didReceive(request, withContentHandler: contentHandler)
    }
}

/// The README's other option: the app's own key names.
final class CleverTapCustomKeysService: CTNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        mediaUrlKey = "myMediaUrlKey"
        mediaTypeKey = "myMediaTypeKey"
        super.didReceive(request, withContentHandler: contentHandler)
    }
}

/// CleverTap's starter extension: events through `CleverTap`, then the SDK's helper.
final class CleverTapStarterService: CTNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        CleverTap.setDebugLevel(2)
        CleverTap.sharedInstance()?.recordEvent("testEventFromNotificationService")
        let profile: Dictionary<String, AnyObject> = ["Identity": 63344 as AnyObject, "Email": "test63344@gmail.com" as AnyObject]
        CleverTap.sharedInstance()?.profilePush(profile)
        CleverTap.sharedInstance()?.recordNotificationViewedEvent(withData: request.content.userInfo)
        super.didReceive(request, withContentHandler: contentHandler)
    }
}

/// CleverTap's helper on payloads shaped as CleverTap sends them (`wzrk_*`, `ct_mediaUrl`, `ct_mediaType`).
@Suite(.timeLimit(.minutes(1)))
struct CleverTapTests {
    private func cleverTap(url: String? = "https://media.example.com/img/pic", type: String? = "image", campaign: Bool = true) -> String {
        var members: [String] = []
        if campaign { members.append(#""wzrk_acct_id": "TEST-R78-ZZZ-9Z7Z", "wzrk_id": "1717400001_20240603", "wzrk_pivot": "wzrk_default""#) }
        if let url { members.append(#""ct_mediaUrl": "\#(url)""#) }
        if let type { members.append(#""ct_mediaType": "\#(type)""#) }
        return SDKTestBench.payload(members.joined(separator: ", "))
    }

    @Test(arguments: [("image", "jpg"), ("video", "mp4"), ("audio", "mp3")])
    func theDeclaredTypeNamesTheFile(type: String, fileExtension: String) async throws {
        // The bytes and the MIME type do not matter for the name: a JPEG served extensionless, as octet-stream.
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "application/octet-stream")])
        let delivered = try await bench.run(CleverTapDocumentedService.self, cleverTap(type: type))

        let attached = try #require(delivered.activity.files.first { $0.action == .attached }, "\(delivered.diagnostics)")
        #expect(URL(fileURLWithPath: attached.path).pathExtension == fileExtension)
        #expect(bench.requestedPaths == ["/img/pic"])
        // iOS validates the content later: JPEG bytes pass as an image, not as a movie or audio.
        #expect(delivered.imageShown == (type == "image"))
    }

    @Test func aJPEGDeclaredAsImageIsShown() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let delivered = try await bench.run(CleverTapDocumentedService.self, cleverTap())

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(try #require(delivered.content.attachments.first).type == "public.jpeg")
        #expect(delivered.result.verdict == .pass)
        #expect(delivered.diagnostics.first(.sdkCleverTapMediaType) == nil)
    }

    @Test func aPNGDeclaredAsImageIsSavedAsJPGAndStillShown() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("new-arrivals.png"), contentType: "image/png")])
        let delivered = try await bench.run(CleverTapDocumentedService.self, cleverTap())

        #expect(delivered.imageShown)
        #expect(try #require(delivered.content.attachments.first).url.pathExtension == "jpg")
        #expect(delivered.diagnostics.first(.sdkCleverTapMediaType)?.severity == .info)
        #expect(delivered.diagnostics.first(.mediaTypeMismatch)?.severity == .warning)
    }

    @Test(arguments: [("image/gif", "flash-deal.gif", "com.compuserve.gif"), ("image/png", "new-arrivals.png", "public.png"), ("image/jpeg", "sale.jpg", "public.jpeg")])
    func anotherTypeTakesTheExactMIMEType(mime: String, file: String, uti: String) async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes(file), contentType: mime)])
        let delivered = try await bench.run(CleverTapDocumentedService.self, cleverTap(type: "gif"))

        #expect(delivered.imageShown)
        #expect(try #require(delivered.content.attachments.first).type == uti)
    }

    @Test func anotherTypeWithAnUnlistedMIMETypeGetsNoExtension() async throws {
        // "image/jpg" is not image/jpeg: the file gets no extension, and iOS refuses it.
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpg")])
        let delivered = try await bench.run(CleverTapDocumentedService.self, cleverTap(type: "jpg"))

        #expect(!delivered.imageShown)
        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.first(.sdkCleverTapMediaType)?.severity == .warning)
        #expect(delivered.diagnostics.first(.mediaUnrecognizedType)?.severity == .error)
    }

    @Test func withOnlyOneKeyNothingIsDownloaded() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let noType = try await bench.run(CleverTapDocumentedService.self, cleverTap(type: nil))
        let noURL = try await bench.run(CleverTapDocumentedService.self, cleverTap(url: nil))

        #expect(bench.requestedPaths.isEmpty)
        for delivered in [noType, noURL] {
            #expect(!delivered.imageShown)
            #expect(delivered.diagnostics.first(.sdkCleverTapMediaKeys)?.severity == .error)
        }
    }

    @Test func aNonStringKeyShowsTheOriginalContent() async throws {
        let bench = try SDKTestBench([:])
        let payload = SDKTestBench.payload(#""ct_mediaUrl": "https://media.example.com/img/pic", "ct_mediaType": 1"#)
        let delivered = try await bench.run(CleverTapDocumentedService.self, payload)

        #expect(bench.requestedPaths.isEmpty)
        #expect(delivered.diagnostics.first(.sdkCleverTapMediaKeys)?.message.contains("assumed") == true)
    }

    @Test func theAppsOwnKeyNamesAreRead() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let payload = SDKTestBench.payload(#""myMediaUrlKey": "https://media.example.com/img/pic", "myMediaTypeKey": "image""#)
        let delivered = try await bench.run(CleverTapCustomKeysService.self, payload)

        #expect(delivered.imageShown)
    }

    @Test func failuresDeliverTheBestAttemptWithoutAttachment() async throws {
        let unreachable = try SDKTestBench.unreachable()
        let network = try await unreachable.run(CleverTapDocumentedService.self, cleverTap())
        let bench = try SDKTestBench([:])
        let notFound = try await bench.run(CleverTapDocumentedService.self, cleverTap())
        let http = try await bench.run(CleverTapDocumentedService.self, cleverTap(url: "http://media.example.com/img/pic"))

        #expect(network.diagnostics.first(.mediaNetwork)?.severity == .error)
        #expect(notFound.diagnostics.first(.mediaHTTPStatus)?.severity == .warning)
        #expect(notFound.diagnostics.first(.mediaTypeMismatch)?.severity == .error)
        #expect(http.diagnostics.first(.mediaInsecureURL)?.severity == .error)
        for delivered in [network, notFound, http] {
            #expect(!delivered.imageShown)
            #expect(delivered.outcome == .modifiedWithoutAttachment)
            #expect(delivered.content.title == "Sale")
        }
    }

    @Test func onExpiryTheBestAttemptIsShown() async throws {
        var bench = try SDKTestBench(["/img/pic": ServedResponse(body: .stall)])
        bench.budget = .milliseconds(800)
        let result = try await bench.runBuiltIn(.clevertap, changes: ContentChanges(titleSuffix: " [modified]"), cleverTap())

        #expect(result.outcome == .bestAttempt)
        #expect(!result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        #expect(result.diagnostics.codes.contains("extension.time-expired"))
    }

    @Test func theBuiltInMakesTheContentChanges() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let result = try await bench.runBuiltIn(.clevertap, changes: ContentChanges(titleSuffix: " [modified]", sound: "default"), cleverTap())

        #expect(result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        #expect(result.content?.sound == "default")
    }

    @Test func eventsAreRecordedNeverSent() async throws {
        let bench = try SDKTestBench(["/img/pic": .ok(try SDKTestBench.bytes("sale.jpg"), contentType: "image/jpeg")])
        let campaign = try await bench.run(CleverTapStarterService.self, cleverTap())
        let foreign = try await bench.run(CleverTapStarterService.self, cleverTap(campaign: false))

        // Only the image went over the network.
        #expect(bench.requestedPaths == ["/img/pic", "/img/pic"])
        let events = campaign.diagnostics.filter { $0.code == .sdkCleverTapEvent }
        #expect(events.count == 3)
        #expect(events.allSatisfy { $0.severity == .info })
        #expect(events.contains { $0.message.contains("Notification Viewed") && $0.message.contains("wzrk_id") })
        #expect(foreign.diagnostics.contains { $0.code == .sdkCleverTapEvent && $0.severity == .warning })
        #expect(campaign.activity.log.contains { $0.source == "CleverTap" })
        #expect(CleverTap.getDebugLevel() == .debug)
    }
}
