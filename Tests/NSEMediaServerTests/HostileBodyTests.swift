import Foundation
import Testing
@testable import NSEMediaServer

/// Bodies that misbehave on purpose, and that stop() ends them at once.
/// Hang guards are the time limit, never a measured duration: the suite shares two cores with the others.
@Suite(.timeLimit(.minutes(1)))
struct HostileBodyTests {
    @Test func truncatedDeclaresMoreThanItSendsThenCloses() throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .truncated([1, 2, 3, 4], declaredLength: 100)) }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/cut.jpg")
        let head = try client.readHead()
        #expect(head.headers["content-length"] == "100")
        #expect(head.headers["connection"] == "close")
        #expect(try client.readUntilClosed() == [1, 2, 3, 4])
    }

    @Test func trickleDeliversEveryByteSlowly() throws {
        let bytes = Array(0..<50).map { UInt8($0) }
        let server = try LoopbackHTTPServer { _ in
            ServedResponse(body: .trickle(bytes, bytesPerChunk: 10, interval: .milliseconds(50)))
        }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        let elapsed = try measure {
            try client.request("GET", "/slow.png")
            let response = try client.readResponse()
            #expect(response.headers["content-length"] == "50")
            #expect(response.body == bytes)
        }
        // Five chunks, four pauses between them.
        #expect(elapsed >= .milliseconds(200))
        // A trickled body is well framed, so the connection stays usable.
        try client.request("GET", "/again.png")
        #expect(try client.readResponse().body == bytes)
    }

    @Test func endlessSendsWithoutLengthUntilTheClientHangsUp() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/endless" ? ServedResponse(body: .endless(byte: 0xAB)) : .ok([1], contentType: "text/plain")
        }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/endless")
        let head = try client.readHead()
        #expect(head.headers["content-length"] == nil)
        #expect(head.headers["connection"] == "close")
        let body = try client.readBytes(300_000)
        #expect(body.allSatisfy { $0 == 0xAB })
        // Hanging up mid-body must end only that connection (no SIGPIPE): the server still serves.
        client.close()

        let next = try RawHTTPClient(port: server.port)
        try next.request("GET", "/after")
        #expect(try next.readResponse().body == [1])
    }

    @Test func stallSendsHeadersThenNothing() throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .stall) }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/stalled.jpg")
        let head = try client.readHead()
        #expect(head.headers["content-length"] == "1000")
        let waited = client.readFor(.milliseconds(300))
        #expect(waited.bytes.isEmpty)
        #expect(!waited.closed)
    }

    @Test func headOnAStalledBodyGetsTheHeadersAndAClose() throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .stall) }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("HEAD", "/stalled.jpg")
        #expect(try client.readResponse(isHead: true).headers["content-length"] == "1000")
        #expect(try client.readUntilClosed().isEmpty)
    }

    enum InProgress: String, CaseIterable, CustomTestStringConvertible {
        case stall, endlessNotRead, endlessRead, trickle, delayedHeaders, idleKeepAlive, silentClient
        var testDescription: String { rawValue }
    }

    /// Clients in the middle of every kind of slow response; stop() must not wait for any of them.
    @Test(arguments: InProgress.allCases)
    func stopReturnsPromptlyWhileAClientIsInProgress(_ kind: InProgress) throws {
        let server = try LoopbackHTTPServer { _ in
            switch kind {
            case .stall: ServedResponse(body: .stall)
            case .endlessNotRead, .endlessRead: ServedResponse(body: .endless(byte: 1))
            case .trickle: ServedResponse(body: .trickle([UInt8](repeating: 2, count: 10_000), bytesPerChunk: 1, interval: .milliseconds(200)))
            case .delayedHeaders: ServedResponse(body: .bytes([3]), delayBeforeHeaders: .seconds(30))
            case .idleKeepAlive: .ok([4], contentType: "text/plain")
            case .silentClient: .ok([5], contentType: "text/plain")
            }
        }
        let client = try RawHTTPClient(port: server.port)
        switch kind {
        case .silentClient:
            // Connected, never sends a byte; make sure the server has accepted it.
            Thread.sleep(forTimeInterval: 0.1)
        case .delayedHeaders:
            try client.request("GET", "/media")
            Thread.sleep(forTimeInterval: 0.1)
        case .idleKeepAlive:
            try client.request("GET", "/media")
            _ = try client.readResponse()
        case .endlessNotRead:
            try client.request("GET", "/media")
            _ = try client.readHead()
            // Let the socket buffers fill so the server is blocked waiting to send.
            Thread.sleep(forTimeInterval: 0.3)
        case .endlessRead:
            try client.request("GET", "/media")
            _ = try client.readHead()
            _ = try client.readBytes(100_000)
        case .stall, .trickle:
            try client.request("GET", "/media")
            _ = try client.readHead()
        }

        server.stop()
        // The client sees the connection end rather than hang.
        let after = client.readFor(RawHTTPClient.hangGuard)
        #expect(after.closed)
    }

    @Test func deinitStopsTheServer() throws {
        var server: LoopbackHTTPServer? = try LoopbackHTTPServer { _ in ServedResponse(body: .stall) }
        let client = try RawHTTPClient(port: server!.port)
        try client.request("GET", "/stalled")
        _ = try client.readHead()
        server = nil
        #expect(client.readFor(RawHTTPClient.hangGuard).closed)
    }
}
