import Foundation
import NSEHarness
import NSEMedia
import NSEPipeline
import NSEPush
import NSETestSupport
import Testing

/// Whole pushes through `Pipeline` (checks, the built-in extension run by the harness, Firebase's download, the
/// system's validation, what the phone shows) with every effect injected: `ScriptedTransport` for the network, a
/// `ManualClock` for the extension's budget and its expiry call, and a file store in the test's own folder. No socket,
/// no process, no wait on the system clock: a 40 s download past a 30 s budget takes microseconds. The same cases over
/// loopback and libcurl stay as integration tests (PipelineTests, HostileServerTests, RedirectHopTests).
@Suite(.timeLimit(.minutes(1)))
struct PipelineRunTests {
    private static let imageURL = "https://cdn.example.com/img/sale.png"
    private static let png = (try? Data(contentsOf: RepositoryFolders.samples.appendingPathComponent("media/img/back-in-stock.png"))).map { [UInt8]($0) } ?? []

    /// A Firebase push asking for `imageURL`, as `nse process` reads it.
    private static func push(image: String = imageURL) throws -> ReceivedPush {
        try PushReader.parse(Data(#"""
        {"aps": {"alert": {"title": "Sale", "body": "50% off today"}, "mutable-content": 1}, "gcm.message_id": "1700000000000000",
         "fcm_options": {"image": "\#(image)"}}
        """#.utf8))
    }

    /// The built-in extension (Firebase's helper, a title suffix) over `script`, on `clock`, its files under `folder`.
    private static func run(
        _ script: [String: ScriptedResponse], clock: ManualClock, folder: URL, files: (any FileStore)? = nil, push: ReceivedPush? = nil
    ) async throws -> (ProcessResult, ScriptedTransport) {
        let transport = ScriptedTransport(script, clock: clock)
        let pipeline = Pipeline(device: DeviceProfile(), changes: ContentChanges(titleSuffix: " [modified]"))
            .with(transport: transport, clock: clock, files: files ?? TemporaryFileStore(root: folder))
        let attachments = folder.appendingPathComponent("attachments")
        return (await pipeline.run(try push ?? Self.push(), input: "sale.json", attachmentDirectory: attachments), transport)
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func anImageThatArrivesWithinTheBudgetIsShown() async throws {
        #expect(!Self.png.isEmpty)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        var response = ScriptedResponse.ok(Self.png, contentType: "image/png")
        response.duration = .seconds(2)
        let (result, transport) = try await Self.run([Self.imageURL: response], clock: clock, folder: folder)

        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.errorCodes.isEmpty)
        #expect(result.content?.title == "Sale [modified]")
        #expect(transport.requests == ["GET \(Self.imageURL)"])
        // The download's 2 s are the clock's: nothing waited for them.
        #expect(result.timings["extension.download"] == 2_000)
        #expect(clock.now == ManualClock.origin + .seconds(2))
        #expect(!clock.hasAlarms, "the expiry call is cancelled once the content is delivered")
        // The kept attachment was moved out of the working folder, which the run removed.
        let saved = try #require(result.content?.attachments.first?.file)
        #expect(FileManager.default.fileExists(atPath: saved))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["attachments"])
    }

    @Test func aDownloadThatOutlastsTheBudgetEndsInTheExpiryCallsBestAttempt() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        var response = ScriptedResponse.ok(Self.png, contentType: "image/png")
        response.duration = .seconds(40)
        let (result, _) = try await Self.run([Self.imageURL: response], clock: clock, folder: folder)

        // What the loopback test of a stalled server expects (HostileServerTests), at the budget's 30 s on the clock.
        #expect(result.outcome == .bestAttempt)
        #expect(result.errorCodes == [.mediaTimeout, .extensionTimeExpired])
        #expect(result.content?.title == "Sale [modified]", "the best attempt keeps the content changes")
        #expect(result.content?.attachments.isEmpty == true)
        #expect(!result.imageShown)
        #expect(clock.now == ManualClock.origin + DeviceProfile().timeBudget)
    }

    @Test func aRedirectChainIsFollowedToTheImage() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let script: [String: ScriptedResponse] = [
            Self.imageURL: .redirect(to: "https://images.example.net/a", status: 301),
            "https://images.example.net/a": .redirect(to: "/b.png", status: 302),
            "https://images.example.net/b.png": .ok(Self.png, contentType: "image/png"),
        ]
        let (result, transport) = try await Self.run(script, clock: clock, folder: folder)

        #expect(transport.requests == [
            "GET \(Self.imageURL)", "GET https://images.example.net/a", "GET https://images.example.net/b.png",
        ])
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
    }

    @Test func aRedirectToPlainHTTPShowsNoImage() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script: [String: ScriptedResponse] = [Self.imageURL: .redirect(to: "http://images.example.net/b.png")]
        let (result, transport) = try await Self.run(script, clock: ManualClock(), folder: folder)

        #expect(transport.requests == ["GET \(Self.imageURL)"], "App Transport Security stops the hop before it is made")
        #expect(result.errorCodes == [.mediaInsecureURL])
        #expect(result.outcome == .modifiedWithoutAttachment)
    }

    /// An attachment the store cannot move into the result's folder is a warning; the phone still shows it.
    @Test func anAttachmentThatCannotBeSavedIsAWarning() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (result, _) = try await Self.run(
            [Self.imageURL: .ok(Self.png, contentType: "image/png")], clock: ManualClock(), folder: folder,
            files: RefusingMoves(root: folder))

        #expect(result.imageShown)
        #expect(result.codes.contains(.mediaNotSaved))
        #expect(result.errorCodes.isEmpty, "the verdict is unaffected")
        #expect(result.content?.attachments.first?.file == nil)
    }
}

/// A store whose moves into the result's folder fail, as on a full disk.
private struct RefusingMoves: FileStore {
    let disk: TemporaryFileStore

    init(root: URL) {
        disk = TemporaryFileStore(root: root)
    }

    var root: URL { disk.root }
    func newWorkFolder() -> URL { disk.newWorkFolder() }
    func makeFolder(_ folder: URL) throws { try disk.makeFolder(folder) }
    func remove(_ folder: URL) { disk.remove(folder) }
    func move(_ file: URL, to destination: URL) throws { throw CocoaError(.fileWriteOutOfSpace) }
}

extension ProcessResult {
    var codes: [DiagnosticCode] { diagnostics.map(\.code) }
    var errorCodes: [DiagnosticCode] { diagnostics.filter { $0.severity == .error }.map(\.code) }
}
