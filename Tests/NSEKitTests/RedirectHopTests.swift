import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
import Testing

/// Every redirect hop is judged as the device judges it, and under a host mapping (`--media`) every hop goes to
/// the loopback server: never to the host a Location names.
struct RedirectHopTests {
    /// The payload's https URL on a real-looking host, served by `server` through a host mapping, as `--media` does.
    private func runMapped(_ routes: [String: ServedResponse], allowsHTTP: Bool = false) async throws -> (ProcessResult, [String]) {
        let server = try cdn(routes)
        defer { server.stop() }
        var profile = DeviceProfile()
        profile.timeBudget = .seconds(5)
        profile.allowsHTTP = allowsHTTP
        let pipeline = Pipeline(device: profile, hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        let result = await pipeline.run(firebasePayload(imageURL: "https://cdn.example.com/start.jpg"), input: "hop.json")
        return (result, server.requests.map(\.path))
    }

    @Test func aRedirectToPlainHTTPIsBlockedByTransportSecurity() async throws {
        let jpeg = try Fixture.jpeg()
        let (result, paths) = try await runMapped([
            "/start.jpg": .redirect(to: "http://cdn.example.com/plain.jpg"),
            "/plain.jpg": .ok(jpeg, contentType: "image/jpeg"),
        ])
        #expect(result.errorCodes == [.mediaInsecureURL])
        #expect(!result.imageShown)
        #expect(result.diagnostics.first?.message.contains("http://cdn.example.com/plain.jpg") == true)
        #expect(paths == ["/start.jpg"], "the insecure hop is never loaded")
    }

    @Test func withAnATSExceptionTheHTTPHopLoads() async throws {
        let jpeg = try Fixture.jpeg()
        let (result, _) = try await runMapped([
            "/start.jpg": .redirect(to: "http://cdn.example.com/plain.jpg"),
            "/plain.jpg": .ok(jpeg, contentType: "image/jpeg"),
        ], allowsHTTP: true)
        #expect(result.imageShown, "\(result.diagnostics)")
    }

    /// A Location on another origin would be an internet fetch; mapped, it is the loopback server's same path.
    @Test func aRedirectToAnotherOriginStaysOnTheLoopbackServer() async throws {
        let jpeg = try Fixture.jpeg()
        let (result, paths) = try await runMapped([
            "/start.jpg": .redirect(to: "https://images.other-cdn.invalid/moved/final.jpg?v=2", status: 301),
            "/moved/final.jpg": .ok(jpeg, contentType: "image/jpeg"),
        ])
        #expect(result.imageShown, "\(result.diagnostics)")
        #expect(paths == ["/start.jpg", "/moved/final.jpg"])
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://cdn.example.com/a.jpg", "gopher://cdn.example.com/1", "dict://cdn.example.com/d:x", "scp://cdn.example.com/a.jpg"])
    func aRedirectToAnotherSchemeIsNamedForWhatItIs(location: String) async throws {
        let (result, paths) = try await runMapped(["/start.jpg": .redirect(to: location)])
        #expect(result.errorCodes == [.mediaNetwork])
        let message = result.diagnostics.first?.message ?? ""
        let scheme = String(location.prefix { $0 != ":" })
        #expect(message.contains("a `\(scheme)` URL"), "\(message)")
        #expect(!message.contains("plain http"))
        #expect(paths == ["/start.jpg"])
    }

    @Test(arguments: [1, 40])
    func responseHeadersOver100KBAreNamedAsSuch(lines: Int) async throws {
        let filler = String(repeating: "x", count: 110 * 1024 / lines)
        let headers = (0..<lines).map { ("X-Filler-\($0)", filler) } + [("Content-Type", "image/jpeg")]
        let (result, _) = try await runMapped(["/start.jpg": ServedResponse(headers: headers, body: .bytes(try Fixture.jpeg()))])
        #expect(result.errorCodes == [.mediaNetwork])
        let message = result.diagnostics.first?.message ?? ""
        #expect(message.contains("more than 102400 bytes of headers"), "\(message)")
        #expect(!message.lowercased().contains("out of memory"))
    }
}
