import Foundation
import CImageFixtures
import NSEHarness
import NSEMedia
import NSEMediaServer
import Testing
import UserNotifications

/// Real apps' extension files (Extensions/), run on a payload against a loopback CDN: what the phone shows, and
/// the requests the extension made, as the harness recorded them.
struct AppExtensionTests {
    /// The CDN's files, made by the real encoders.
    static let jpeg = Self.encode("jpg") { cimagefixtures_write_jpeg($0, 64, 48, 85, 0, 7) }
    static let png = Self.encode("png") { cimagefixtures_write_png($0, 40, 30, 0, 3) }
    static let gif = Self.encode("gif") { cimagefixtures_write_gif($0, 32, 32, 3, 5) }

    static func encode(_ fileExtension: String, _ write: (UnsafePointer<CChar>) -> Int32) -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-app-\(UUID().uuidString).\(fileExtension)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard file.path.withCString(write) == 0, let data = try? Data(contentsOf: file, options: []) else { return [] }
        return Array(data)
    }

    /// cdn.example.com as the payloads name it, served from 127.0.0.1.
    private func cdn() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            switch request.path {
            case "/img/sale.jpg": return .ok(Self.jpeg, contentType: "image/jpeg")
            case "/img/promo.png": return .ok(Self.png, contentType: "image/png")
            // No extension in the path: the name comes from suggestedFilename ("42" + ".png" from the MIME type).
            case "/campaign/42": return .ok(Self.png, contentType: "image/png")
            case "/private/banner.gif":
                guard request.headers["authorization"] == "Bearer push-media-token" else { return .page(status: 401, message: "token") }
                return .ok(Self.gif, contentType: "image/gif")
            case "/moved/sale.jpg": return .redirect(to: "http://cdn.example.com/img/sale.jpg")
            case "/stall.jpg": return ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)
            case "/v1/receipts":
                guard request.method == "POST", request.headers["content-type"] == "application/json" else { return .page(status: 405, message: "POST JSON") }
                return ServedResponse(status: 202, headers: [("Content-Type", "application/json")], body: .bytes(Array("{}".utf8)))
            default: return .notFound
            }
        }
    }

    /// Five minutes by default, not iOS's 30 s: a busy machine (the suite shares two cores with the rest of `make
    /// test`, and once took 30 s for one download) never turns a download that works into an expiry; the expiry
    /// tests set a short one.
    private func harness(_ server: LoopbackHTTPServer, budget: Duration = .seconds(300)) -> ExtensionHarness {
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.profile.timeBudget = budget
        harness.expiryGrace = .milliseconds(500)
        return harness
    }

    private func payload(_ custom: String) -> String {
        #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, \#(custom)}"#
    }

    @Test func downloadTaskRenamedAndAttachedShowsTheImage() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ClassicDownloadService.self, payload: payload(#""image_url": "https://cdn.example.com/img/sale.jpg""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(delivered.content.title == "Sale [downloaded]")
        #expect(delivered.content.attachments.map(\.type) == ["public.jpeg"])
        #expect(delivered.diagnostics.filter { $0.severity != .info }.isEmpty, "\(delivered.diagnostics)")
        let request = try #require(delivered.activity.requests.first)
        #expect(delivered.activity.requests.count == 1)
        #expect(request.api == "URLSession.downloadTask" && request.method == "GET")
        #expect(request.url == "https://cdn.example.com/img/sale.jpg")
        #expect(request.status == 200 && request.bytes == Self.jpeg.count && request.outcome == .completed)
        #expect(request.diagnostic == nil && request.error == nil)
        #expect(server.requests.map(\.path) == ["/img/sale.jpg"])
        let created = try #require(delivered.activity.files.first)
        #expect(created.action == .created && created.path.hasSuffix(".tmp") && created.path.contains("CFNetworkDownload_"))
    }

    @Test func dataTaskWithAHeaderWritesAGIFAndShowsIt() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(GIFDataTaskService.self, payload: payload(#""media": {"url": "https://cdn.example.com/private/banner.gif"}"#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(delivered.content.attachments.map(\.type) == ["com.compuserve.gif"])
        #expect(delivered.result.content?.attachments.first?.frames == 3)
        #expect(server.requests.first?.headers["authorization"] == "Bearer push-media-token")
        let request = try #require(delivered.activity.requests.first)
        #expect(request.api == "URLSession.dataTask" && request.status == 200 && request.bytes == Self.gif.count)
        // The body was held in memory for the completion handler: charged to this run, whatever runs beside it.
        #expect(delivered.activity.memory?.accountedPeakBytes == Self.gif.count)
    }

    @Test func asyncDownloadNamedAfterSuggestedFilenameShowsTheImage() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(AsyncDownloadService.self, payload: payload(#""attachment-url": "https://cdn.example.com/campaign/42""#))

        #expect(delivered.outcome == .modified, "\(delivered.diagnostics)")
        #expect(delivered.imageShown)
        #expect(delivered.content.subtitle.isEmpty)
        #expect(delivered.content.attachments.map(\.url.lastPathComponent) == ["42.png"])
        #expect(delivered.activity.requests.map(\.api) == ["URLSession.download(for:)"])
        #expect(delivered.activity.requests.map(\.status) == [200])
    }

    @Test func dataContentsOfInDidReceiveShowsTheImage() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ContentsOfService.self, payload: payload(#""image": "https://cdn.example.com/img/promo.png""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(delivered.content.attachments.map(\.type) == ["public.png"])
        let request = try #require(delivered.activity.requests.first)
        #expect(request.api == "Data(contentsOf:)" && request.status == 200 && request.bytes == Self.png.count)
    }

    @Test func attachingTheTmpFileAsItIsFailsWithUNError101() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(TmpFileService.self, payload: payload(#""image_url": "https://cdn.example.com/img/sale.jpg""#))

        #expect(delivered.content.body == "UNError 101")
        #expect(!delivered.imageShown)
        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.diagnostics.map(\.code) == [.mediaUnrecognizedType])
        #expect(delivered.activity.requests.map(\.outcome) == [.completed], "the download itself worked")
        #expect(delivered.activity.files.map(\.action) == [.created, .written, .removed], "the .tmp is deleted after the handler")
    }

    @Test(.timeLimit(.minutes(1)))
    func anExtensionThatDeliversOnlyOnExpiryShowsTheImageLate() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server, budget: .seconds(1)).run(ExpiryOnlyService.self, payload: payload(#""image_url": "https://cdn.example.com/img/promo.png""#))

        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.imageShown, "the attachment was set before the expiry call delivered it")
        #expect(delivered.diagnostics.map(\.code) == [.extensionTimeExpired])
        // On a device the image shows, after the wait: a warning, and a headline that agrees with the exit status.
        #expect(delivered.diagnostics.first?.severity == .warning)
        #expect(delivered.result.verdict == .pass)
        #expect(delivered.result.headline.line.hasPrefix("OK: "))
        #expect(delivered.activity.handlerCalls.map(\.thread) == ["serviceExtensionTimeWillExpire"])
        #expect(delivered.activity.requests.map(\.outcome) == [.completed])
    }

    @Test func plainHTTPWithoutAnATSExceptionIsBlockedBeforeAnyRequest() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ClassicDownloadService.self, payload: payload(#""image_url": "http://cdn.example.com/img/sale.jpg""#))

        #expect(delivered.outcome == .modifiedWithoutAttachment, "the extension delivered, without the image it downloaded")
        #expect(!delivered.imageShown)
        #expect(delivered.content.title == "Sale [downloaded]")
        #expect(delivered.diagnostics.map(\.code) == [.mediaInsecureURL])
        let request = try #require(delivered.activity.requests.first)
        #expect(request.outcome == .failed && request.error == "NSURLErrorDomain -1022" && request.diagnostic == .mediaInsecureURL)
        #expect(server.requests.isEmpty)
    }

    @Test func plainHTTPWithAnExceptionDomainInTheInfoPlistLoads() async throws {
        let server = try cdn()
        defer { server.stop() }
        let plist = FileManager.default.temporaryDirectory.appendingPathComponent("nse-app-\(UUID().uuidString)-Info.plist")
        defer { try? FileManager.default.removeItem(at: plist) }
        let ats: [String: Any] = ["NSAppTransportSecurity": ["NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true]]]]
        try PropertyListSerialization.data(fromPropertyList: ats, format: .xml, options: 0).write(to: plist)
        var harness = harness(server)
        try harness.loadInfoPlist(plist)

        let delivered = try await harness.run(ClassicDownloadService.self, payload: payload(#""image_url": "http://cdn.example.com/img/sale.jpg""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(delivered.activity.requests.map(\.status) == [200])
        #expect(server.requests.map(\.path) == ["/img/sale.jpg"])
    }

    @Test func aRedirectToPlainHTTPIsBlockedOnItsHop() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ClassicDownloadService.self, payload: payload(#""image_url": "https://cdn.example.com/moved/sale.jpg""#))

        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.map(\.code) == [.mediaInsecureURL])
        #expect(delivered.activity.requests.map(\.error) == ["NSURLErrorDomain -1022"])
        #expect(server.requests.map(\.path) == ["/moved/sale.jpg"], "the http hop is never requested")
    }

    @Test func aDelegateSessionShowsTheImage() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(DelegateDownloadService.self, payload: payload(#""image_url": "https://cdn.example.com/img/promo.png""#))

        #expect(delivered.outcome == .modified, "\(delivered.diagnostics)")
        #expect(delivered.imageShown)
        #expect(delivered.content.attachments.map(\.type) == ["public.png"])
        #expect(delivered.activity.requests.map(\.api) == ["URLSession.downloadTask"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aDownloadStillRunningAtExpiryDiesWithTheExtension() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server, budget: .seconds(1)).run(ClassicDownloadService.self, payload: payload(#""image_url": "https://cdn.example.com/stall.jpg""#))

        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.content.title == "Sale", "the completion handler never ran")
        #expect(!delivered.imageShown)
        #expect(delivered.activity.requests.map(\.outcome) == [.unfinished])
    }

    @Test func anErrorPageSavedAsTheImageIsReported() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ClassicDownloadService.self, payload: payload(#""image_url": "https://cdn.example.com/img/gone.jpg""#))

        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.map(\.code).contains(.mediaHTTPStatus))
        #expect(delivered.activity.requests.map(\.status) == [404])
    }

    @Test func aBodyHeldInMemoryPastTheLimitGetsTheExtensionKilled() async throws {
        let server = try cdn()
        defer { server.stop() }
        var harness = harness(server)
        harness.profile.memoryLimit = Self.gif.count / 2
        let delivered = try await harness.run(GIFDataTaskService.self, payload: payload(#""media": {"url": "https://cdn.example.com/private/banner.gif"}"#))

        #expect(delivered.outcome == .original)
        #expect(delivered.diagnostics.map(\.code) == [.extensionMemoryLimit])
        #expect(delivered.activity.requests.map(\.diagnostic) == [.extensionMemoryLimit])
        #expect((delivered.activity.memory?.accountedPeakBytes ?? 0) > harness.profile.memoryLimit)
    }

    @Test(.timeLimit(.minutes(1)))
    func aCancelledTaskCompletesWithMinus999AndATaskOnAnInvalidatedSessionIsFlagged() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(CancellingService.self, payload: payload(#""image_url": "https://cdn.example.com/stall.jpg""#))

        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(delivered.content.subtitle == "error -999")
        #expect(delivered.activity.requests.map(\.outcome).contains(.cancelled))
        #expect(delivered.diagnostics.map(\.code) == [.mediaNetwork], "the task on the invalidated session")
        #expect(delivered.diagnostics.first?.message.contains("invalidated") == true)
    }

    @Test func anInfoPlistKeyIOSIgnoresIsReported() async throws {
        let server = try cdn()
        defer { server.stop() }
        var harness = harness(server)
        harness.loadInfoPlist(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true, "NSAllowsArbitraryLoadsInWebContent": true]])
        let delivered = try await harness.run(ClassicDownloadService.self, payload: payload(#""image_url": "http://cdn.example.com/img/sale.jpg""#))

        #expect(delivered.diagnostics.map(\.code) == [.extensionInfoPlist, .mediaInsecureURL])
        #expect(!delivered.imageShown)
    }

    @Test func aReceiptPostedWithAnUploadTaskIsRecorded() async throws {
        let server = try cdn()
        defer { server.stop() }
        let delivered = try await harness(server).run(ReceiptService.self, payload: payload(#""message_id": "m-17""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.content.subtitle == "receipt 202")
        #expect(server.requests.map(\.method) == ["POST"])
        let request = try #require(delivered.activity.requests.first)
        #expect(request.api == "URLSession.uploadTask" && request.method == "POST" && request.status == 202)
    }
}
