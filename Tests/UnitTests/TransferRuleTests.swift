import Foundation
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization
import Testing

/// The rules each hop of a download is judged by (`HopRules`), through the in-memory transport and a manual
/// clock: the same errors and diagnostics as the loopback tests (RedirectHopTests, HostileServerTests), which
/// stay as libcurl's integration tests.
struct TransferRuleTests {
    private static let start = "https://cdn.example.com/start.jpg"
    private static let jpegBytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 60)

    private static func profile(budget: Duration = .seconds(30), allowsHTTP: Bool = false) -> DeviceProfile {
        var profile = DeviceProfile()
        profile.timeBudget = budget
        profile.allowsHTTP = allowsHTTP
        return profile
    }

    /// A fetcher whose transfers `transport` carries, as `--media` maps them when `mapped`.
    private static func fetcher(_ transport: ScriptedTransport, profile: DeviceProfile = profile(), mapped: Bool = false) -> MediaFetcher {
        var fetcher = MediaFetcher(profile: profile, hostMapping: mapped ? MediaHostMapping(origin: URL(string: "http://127.0.0.1:8080")!) : nil)
        fetcher.transport = transport
        return fetcher
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Fetches `url` (the payload's start URL by default) with a limit of `limit` bytes, the budget starting now.
    private static func fetch(
        _ transport: ScriptedTransport, profile: DeviceProfile = profile(), mapped: Bool = false, limit: Int = 10_000_000
    ) async throws -> Result<FetchedMedia, MediaFetchError> {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let deadline = transport.clock.now + profile.timeBudget
        do {
            return .success(try await fetcher(transport, profile: profile, mapped: mapped).fetch(
                URL(string: start)!, to: folder.appendingPathComponent("download"), deadline: deadline) { _ in limit })
        } catch {
            return .failure(error)
        }
    }

    private static func failure(_ result: Result<FetchedMedia, MediaFetchError>) -> MediaFetchError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    // MARK: The transfer's errors

    @Test func aRedirectChainLongerThanTheLimitFails() async throws {
        var profile = Self.profile()
        profile.maxRedirects = 3
        let script = Dictionary(uniqueKeysWithValues: (0..<10).map {
            ($0 == 0 ? Self.start : "https://cdn.example.com/\($0).jpg", ScriptedResponse.redirect(to: "/\($0 + 1).jpg"))
        })
        let transport = ScriptedTransport(script)
        let result = try await Self.fetch(transport, profile: profile)
        #expect(Self.failure(result) == .tooManyRedirects(limit: 3))
        #expect(transport.requests.count == 4, "the first hop and three redirects, never the fourth")
    }

    @Test func aChainAtTheLimitLoads() async throws {
        var profile = Self.profile()
        profile.maxRedirects = 2
        let transport = ScriptedTransport([
            Self.start: .redirect(to: "/1.jpg"), "https://cdn.example.com/1.jpg": .redirect(to: "/2.jpg"),
            "https://cdn.example.com/2.jpg": .ok(Self.jpegBytes, contentType: "image/jpeg"),
        ])
        let fetched = try await Self.fetch(transport, profile: profile).get()
        #expect(fetched.redirects == 2)
        #expect(fetched.bytes == Self.jpegBytes.count)
        #expect(fetched.head.url.absoluteString == "https://cdn.example.com/2.jpg")
    }

    @Test func aRedirectToPlainHTTPIsRefusedByTransportSecurity() async throws {
        let transport = ScriptedTransport([
            Self.start: .redirect(to: "http://cdn.example.com/plain.jpg"),
            "http://cdn.example.com/plain.jpg": .ok(Self.jpegBytes, contentType: "image/jpeg"),
        ])
        let result = try await Self.fetch(transport)
        #expect(Self.failure(result) == .insecureRedirect(URL(string: "http://cdn.example.com/plain.jpg")!))
        #expect(transport.requests == ["GET \(Self.start)"], "the insecure hop is never loaded")
    }

    @Test func withAnATSExceptionThePlainHTTPHopLoads() async throws {
        let transport = ScriptedTransport([
            Self.start: .redirect(to: "http://cdn.example.com/plain.jpg"),
            "http://cdn.example.com/plain.jpg": .ok(Self.jpegBytes, contentType: "image/jpeg"),
        ])
        let fetched = try await Self.fetch(transport, profile: Self.profile(allowsHTTP: true)).get()
        #expect(fetched.redirects == 1)
        #expect(fetched.prefix.starts(with: [0xFF, 0xD8]))
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://cdn.example.com/a.jpg", "gopher://cdn.example.com/1"])
    func aRedirectToAnotherSchemeIsNeverFollowed(location: String) async throws {
        let transport = ScriptedTransport([Self.start: .redirect(to: location)])
        let result = try await Self.fetch(transport)
        #expect(Self.failure(result) == .unsupportedRedirect(URL(string: location)!))
        #expect(transport.requests.count == 1)
    }

    /// A Location on another origin would be an internet fetch; mapped, it is the loopback server's same path.
    @Test func underAHostMappingEveryHopStaysOnTheMappedServer() async throws {
        let transport = ScriptedTransport([
            "http://127.0.0.1:8080/start.jpg": .redirect(to: "https://images.other-cdn.invalid/moved/final.jpg?v=2", status: 301),
            "http://127.0.0.1:8080/moved/final.jpg?v=2": .ok(Self.jpegBytes, contentType: "image/jpeg"),
        ])
        let fetched = try await Self.fetch(transport, mapped: true).get()
        #expect(transport.requests == ["GET http://127.0.0.1:8080/start.jpg", "GET http://127.0.0.1:8080/moved/final.jpg?v=2"])
        #expect(fetched.head.url.absoluteString == "https://images.other-cdn.invalid/moved/final.jpg?v=2", "ATS and the file name see the device's URL")
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        let transport = ScriptedTransport([
            Self.start: ScriptedResponse(headers: [("Content-Type", "image/jpeg"), ("Content-Length", "11000000")], body: [0xFF, 0xD8]),
        ])
        #expect(Self.failure(try await Self.fetch(transport)) == .tooLarge(limit: 10_000_000, declared: 11_000_000))
    }

    @Test func aBodyOverTheLimitWithoutALengthFails() async throws {
        let transport = ScriptedTransport([Self.start: ScriptedResponse(headers: [("Content-Type", "image/jpeg")], body: Self.jpegBytes)])
        #expect(Self.failure(try await Self.fetch(transport, limit: 10)) == .tooLarge(limit: 10, declared: nil))
        let fits = try await Self.fetch(transport, limit: Self.jpegBytes.count).get()
        #expect(fits.bytes == Self.jpegBytes.count, "a body of exactly the limit is accepted")
    }

    /// The limit is decided from the final response's head, not the redirect's.
    @Test func theSizeLimitIsDecidedOnTheFinalResponse() async throws {
        let transport = ScriptedTransport([
            Self.start: .redirect(to: "/final.png"),
            "https://cdn.example.com/final.png": .ok(Self.jpegBytes, contentType: "image/png"),
        ])
        let seen = Mutex<[String]>([])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Self.fetcher(transport).fetch(URL(string: Self.start)!, to: folder.appendingPathComponent("d"), deadline: transport.clock.now + .seconds(30)) { head in
            seen.withLock { $0.append("\(head.status) \(head.url.lastPathComponent) \(head.mimeType ?? "-")") }
            return 1_000
        }
        #expect(seen.withLock { $0 } == ["200 final.png image/png"])
    }

    @Test func anErrorStatusIsAResponseWithItsBody() async throws {
        let page = Array("<h1>Not Found</h1>".utf8)
        let transport = ScriptedTransport([Self.start: ScriptedResponse(status: 404, headers: [("Content-Type", "text/html")], body: page)])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fetched = try await Self.fetcher(transport).fetch(
            URL(string: Self.start)!, to: folder.appendingPathComponent("d"), deadline: transport.clock.now + .seconds(30)) { _ in 1_000 }
        #expect(fetched.head.status == 404)
        #expect(try Data(contentsOf: fetched.file) == Data(page), "the error page is what was saved")
    }

    @Test func aLyingContentLengthIsATruncatedDownload() async throws {
        let transport = ScriptedTransport([
            Self.start: ScriptedResponse(headers: [("Content-Length", "\(Self.jpegBytes.count * 2)")], body: Self.jpegBytes),
        ])
        #expect(Self.failure(try await Self.fetch(transport)) == .truncated(expected: Self.jpegBytes.count * 2, received: Self.jpegBytes.count))
    }

    @Test func headersOver100KBAreRefused() async throws {
        let filler = String(repeating: "x", count: 110 * 1024)
        let transport = ScriptedTransport([Self.start: ScriptedResponse(headers: [("X-Filler", filler)], body: Self.jpegBytes)])
        #expect(Self.failure(try await Self.fetch(transport)) == .headersTooLarge(limit: 102_400))
    }

    @Test func aBudgetAlreadySpentMakesNoRequest() async throws {
        let transport = ScriptedTransport([Self.start: .ok(Self.jpegBytes, contentType: "image/jpeg")])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let deadline = transport.clock.now + .seconds(30)
        transport.clock.advance(by: .seconds(30))
        await #expect(throws: MediaFetchError.timeout(received: 0)) {
            try await Self.fetcher(transport).fetch(URL(string: Self.start)!, to: folder.appendingPathComponent("d"), deadline: deadline) { _ in 1_000 }
        }
        #expect(transport.requests.isEmpty)
    }

    /// The budget covers every hop: a redirect that uses most of it leaves the next hop too little.
    @Test func theBudgetRunsOutOnALaterHop() async throws {
        let transport = ScriptedTransport([
            Self.start: ScriptedResponse(status: 302, headers: [("Location", "/slow.jpg")], duration: .seconds(20)),
            "https://cdn.example.com/slow.jpg": ScriptedResponse(headers: [("Content-Type", "image/jpeg")], body: Self.jpegBytes, duration: .seconds(20)),
        ])
        let started = transport.clock.now
        #expect(Self.failure(try await Self.fetch(transport)) == .timeout(received: 0))
        #expect(transport.requests.count == 2)
        #expect(started.duration(to: transport.clock.now) == .seconds(30), "the transfer ends at its deadline, not later")
    }

    @Test func aPostRedirectedBy303IsFollowedAsAGetAnd307KeepsIt() throws {
        let transport = ScriptedTransport([
            "https://api.example.com/see-other": .redirect(to: "/result", status: 303),
            "https://api.example.com/temporary": .redirect(to: "/result", status: 307),
            "https://api.example.com/result": .ok(Array("{}".utf8), contentType: "application/json"),
        ])
        let fetcher = Self.fetcher(transport)
        for path in ["see-other", "temporary"] {
            let response = try fetcher.requestBlocking(
                URL(string: "https://api.example.com/\(path)")!, parts: HTTPRequestParts(method: "POST", body: Data("a=1".utf8)),
                to: nil, deadline: transport.clock.now + .seconds(5), cancellations: []) { _ in 1_000 }
            #expect(response.body == Data("{}".utf8))
        }
        #expect(transport.requests == [
            "POST https://api.example.com/see-other", "GET https://api.example.com/result",
            "POST https://api.example.com/temporary", "POST https://api.example.com/result",
        ])
    }
}

/// What Firebase's helper reports for each failed transfer, from scripted responses: the diagnostics the loopback
/// tests (RedirectHopTests, HostileServerTests) expect from real ones.
struct TransferDiagnosticTests {
    private static let start = "https://cdn.example.com/start.jpg"

    /// Runs Firebase's helper on a push whose image is `start`, every transfer scripted; `spent` of the budget has
    /// passed before the helper starts.
    private static func run(_ script: [String: ScriptedResponse], spent: Duration = .zero) async throws -> FirebaseImageHelper.Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = ScriptedTransport(script)
        var profile = DeviceProfile()
        profile.timeBudget = .seconds(30)
        var fetcher = MediaFetcher(profile: profile)
        fetcher.transport = transport
        let context = ExtensionContext(profile: profile, deadline: transport.clock.now + profile.timeBudget, fetcher: fetcher, workDirectory: folder)
        transport.clock.advance(by: spent)
        let request = ImageRequest.firebase(in: ["fcm_options": .object(["image": .string(start)])])
        return await withCheckedContinuation { continuation in
            FirebaseImageHelper().run(request, state: ExtensionState(original: NotificationContent()), context: context) {
                continuation.resume(returning: $0)
            }
        }
    }

    private static func errors(_ outcome: FirebaseImageHelper.Outcome) -> [DiagnosticCode] {
        outcome.state.diagnostics.filter { $0.severity == .error }.map(\.code)
    }

    @Test func aRedirectToPlainHTTPIsBlockedByTransportSecurity() async throws {
        let outcome = try await Self.run([Self.start: .redirect(to: "http://cdn.example.com/plain.jpg")])
        #expect(Self.errors(outcome) == [.mediaInsecureURL])
        #expect(outcome.state.diagnostics.first?.message.contains("http://cdn.example.com/plain.jpg") == true)
        #expect(outcome.state.bestAttemptContent.attachments.isEmpty)
    }

    @Test func aRedirectToAnotherSchemeIsNamedForWhatItIs() async throws {
        let outcome = try await Self.run([Self.start: .redirect(to: "file:///etc/passwd")])
        #expect(Self.errors(outcome) == [.mediaNetwork])
        let message = outcome.state.diagnostics.first?.message ?? ""
        #expect(message.contains("a `file` URL"), "\(message)")
        #expect(!message.contains("plain http"))
    }

    @Test func aRedirectLoopIsNamed() async throws {
        let outcome = try await Self.run([Self.start: .redirect(to: Self.start)])
        #expect(Self.errors(outcome) == [.mediaTooManyRedirects])
        #expect(outcome.state.diagnostics.first?.message.contains("more than 16 times") == true)
    }

    @Test func responseHeadersOver100KBAreNamedAsSuch() async throws {
        let filler = String(repeating: "x", count: 110 * 1024)
        let outcome = try await Self.run([Self.start: ScriptedResponse(headers: [("X-Filler", filler), ("Content-Type", "image/jpeg")])])
        #expect(Self.errors(outcome) == [.mediaNetwork])
        #expect(outcome.state.diagnostics.first?.message.contains("more than 102400 bytes of headers") == true)
    }

    @Test func anAnnouncedOversizedBodyIsRefused() async throws {
        let outcome = try await Self.run([
            Self.start: ScriptedResponse(headers: [("Content-Type", "image/jpeg"), ("Content-Length", "11000000")], body: [0xFF, 0xD8]),
        ])
        #expect(Self.errors(outcome) == [.mediaTooLarge])
        let message = outcome.state.diagnostics.first?.message ?? ""
        #expect(message.contains("11000000"), "\(message)")
        #expect(!message.contains("--megabyte"), "11 MB is over both readings of 10 MB")
    }

    @Test func anErrorPageIsNotAttached() async throws {
        let outcome = try await Self.run([
            Self.start: ScriptedResponse(status: 404, headers: [("Content-Type", "text/html")], body: Array("<h1>Not Found</h1>".utf8)),
        ])
        #expect(Self.errors(outcome) == [.mediaHTTPStatus])
        #expect(outcome.state.diagnostics.first?.message.contains("HTTP 404") == true)
        #expect(outcome.state.bestAttemptContent.attachments.isEmpty)
    }

    @Test func aBudgetAlreadySpentIsATimeOut() async throws {
        let outcome = try await Self.run([Self.start: ScriptedResponse(body: [1])], spent: .seconds(31))
        #expect(Self.errors(outcome) == [.mediaTimeout])
        #expect(outcome.timedOut, "the helper's task is still waiting: the handler is not called")
    }

    @Test func aServerSlowerThanTheBudgetIsATimeOut() async throws {
        let outcome = try await Self.run([Self.start: ScriptedResponse(body: [1], duration: .seconds(45))])
        #expect(Self.errors(outcome) == [.mediaTimeout])
        #expect(outcome.state.diagnostics.first?.message.contains("30 s budget (0 bytes received)") == true, "\(outcome.state.diagnostics)")
    }
}
