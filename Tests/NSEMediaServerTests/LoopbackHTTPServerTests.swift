import Foundation
import Testing
@testable import NSEMediaServer

/// HTTP/1.1 behaviour of the server with well-behaved bodies: framing, keep-alive, HEAD, bad requests.
/// Hang guards are the time limit, never a measured duration: the suite shares two cores with the others.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackHTTPServerTests {
    let pixel: [UInt8] = Array(0..<200).map { UInt8($0) }

    @Test func servesBytesWithLengthAndContentType() throws {
        let pixel = self.pixel
        let server = try LoopbackHTTPServer { _ in .ok(pixel, contentType: "image/png") }
        defer { server.stop() }
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/pixel.png")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "200")
        #expect(response.headers["content-type"] == "image/png")
        #expect(response.body == pixel)
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try LoopbackHTTPServer(idleTimeout: .seconds(600)) { request in .ok(Array(request.path.utf8), contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/first")
        let first = try client.readResponse()
        try client.request("GET", "/second")
        let second = try client.readResponse()
        #expect(first.text == "/first")
        #expect(second.text == "/second")
        #expect(first.headers["connection"] == nil)
        #expect(server.requests.map(\.path) == ["/first", "/second"])
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try LoopbackHTTPServer { request in .ok(Array(request.path.utf8), contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "/a")
        #expect(try client.readResponse().text == "/b")
    }

    @Test func clientConnectionCloseIsHonoured() throws {
        let server = try LoopbackHTTPServer { _ in .ok([1, 2, 3], contentType: "image/gif") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/a.gif", extraHeaders: ["Connection: close"])
        let response = try client.readResponse()
        #expect(response.body == [1, 2, 3])
        #expect(response.headers["connection"] == "close")
        #expect(try client.readUntilClosed().isEmpty)
    }

    @Test func http10ClosesAfterTheResponse() throws {
        let server = try LoopbackHTTPServer { _ in .ok([7], contentType: "image/gif") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /a.gif HTTP/1.0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.body == [7])
        #expect(response.headers["connection"] == "close")
        #expect(try client.readUntilClosed().isEmpty)
    }

    @Test func headSendsHeadersOnlyAndKeepsTheConnection() throws {
        let pixel = self.pixel
        let server = try LoopbackHTTPServer { _ in .ok(pixel, contentType: "image/png") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("HEAD", "/pixel.png")
        let head = try client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "200")
        // Had the server sent a body after HEAD, it would be read here as the next response and fail.
        try client.request("GET", "/pixel.png")
        let get = try client.readResponse()
        #expect(get.status == 200)
        #expect(get.body == pixel)
        #expect(server.requests.map(\.method) == ["HEAD", "GET"])
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /\r\n\r\n",
        "GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nBad Name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n folded: x\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET relative HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -4\r\n\r\n",
        "G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
    ])
    func malformedRequestGets400AndClose(raw: String) throws {
        let server = try LoopbackHTTPServer { _ in .ok([1], contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.send(raw)
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["connection"] == "close")
        #expect(try client.readUntilClosed().isEmpty)
        #expect(server.requests.isEmpty)
    }

    @Test func unsupportedVersionGets505() throws {
        let server = try LoopbackHTTPServer { _ in .ok([1], contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.send("GET / HTTP/2.0\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 505)
    }

    @Test func oversizedHeadGets431() throws {
        let server = try LoopbackHTTPServer { _ in .ok([1], contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        let filler = String(repeating: "a", count: 20_000)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Filler: \(filler)\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 431)
        #expect(try client.readUntilClosed().isEmpty)
    }

    @Test func requestBodyIsSkippedAndTheConnectionReused() throws {
        let server = try LoopbackHTTPServer { request in .ok(Array(request.method.utf8), contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "POST")
        #expect(try client.readResponse().text == "GET")
        #expect(server.requests.map(\.path) == ["/upload", "/next"])
    }

    @Test func requestsAreRecordedInOrderWithDecodedPathQueryAndHeaders() throws {
        let server = try LoopbackHTTPServer { _ in .ok([], contentType: "text/plain") }
        defer { server.stop() }

        for target in ["/one", "/two%20words.jpg?size=large&x=%41", "/three"] {
            let client = try RawHTTPClient(port: server.port)
            try client.request("GET", target, extraHeaders: ["User-Agent: NSE-Test/1", "Accept: image/*", "Accept: */*"])
            _ = try client.readResponse()
        }
        let requests = server.requests
        #expect(requests.map(\.path) == ["/one", "/two words.jpg", "/three"])
        #expect(requests.map(\.query) == [nil, "size=large&x=%41", nil])
        #expect(requests[1].headers["user-agent"] == "NSE-Test/1")
        #expect(requests[1].headers["accept"] == "image/*, */*")
        #expect(requests[1].headers["host"] == "127.0.0.1")
    }

    @Test func absoluteFormTargetIsReducedToItsPath() throws {
        let server = try LoopbackHTTPServer { _ in .ok([], contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "http://cdn.example/img/a.png?x=1")
        _ = try client.readResponse()
        #expect(server.requests.first?.path == "/img/a.png")
        #expect(server.requests.first?.query == "x=1")
    }

    @Test func fileBodyStreamsTheFileWithItsSize() throws {
        let scratch = try ScratchDirectory()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = try scratch.write("big.bin", bytes)
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .file(path: path)) }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/big.bin")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "300000")
        #expect(response.body == bytes)
    }

    /// A file is sent with sendfile(2), which raises SIGPIPE on a connection the client has dropped (the test
    /// process has SIGPIPE at its default, which ends a process): the process must survive it, and the next
    /// client gets the whole file.
    @Test func aClientDroppingAFileMidwayLeavesTheServerServing() throws {
        let scratch = try ScratchDirectory()
        let bytes = (0..<8_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let path = try scratch.write("large.bin", bytes)
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .file(path: path)) }
        defer { server.stop() }

        for _ in 0..<3 {
            let quitter = try RawHTTPClient(port: server.port)
            try quitter.request("GET", "/large.bin")
            _ = try quitter.readHead()
            _ = try quitter.readBytes(1000)
            // Closing with unread data makes the kernel reset the connection: the server's next send fails.
            quitter.close()
        }
        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/large.bin")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "8000000")
        #expect(response.body == bytes)
    }

    @Test func fileBodyThatCannotBeOpenedGets404() throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .file(path: "/nonexistent/nse/file.png")) }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/file.png")
        let response = try client.readResponse()
        #expect(response.status == 404)
        #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
    }

    @Test func redirectAndHandlerHeadersAreSentButFramingHeadersAreTheServers() throws {
        let server = try LoopbackHTTPServer { request in
            if request.path == "/old" { return .redirect(to: "/new", status: 301) }
            return ServedResponse(
                headers: [("Content-Length", "999"), ("Connection", "close"), ("X-Evil", "a\r\nInjected: 1"), ("Cache-Control", "no-store")],
                body: .bytes([9, 9]))
        }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/old")
        let redirect = try client.readResponse()
        #expect(redirect.status == 301)
        #expect(redirect.headers["location"] == "/new")
        #expect(redirect.headers["content-length"] == "0")

        try client.request("GET", "/new")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "2")
        #expect(response.headers["connection"] == nil)
        #expect(response.headers["x-evil"] == nil)
        #expect(response.headers["injected"] == nil)
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.body == [9, 9])
    }

    @Test func notModifiedCarriesNoBodyAndKeepsTheConnection() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/cached" ? ServedResponse(status: 304, body: .bytes([1, 2, 3])) : .ok([5], contentType: "image/gif")
        }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/cached")
        let cached = try client.readResponse()
        #expect(cached.status == 304)
        #expect(cached.headers["content-length"] == nil)
        try client.request("GET", "/fresh")
        #expect(try client.readResponse().body == [5])
    }

    @Test func delayBeforeHeadersHoldsTheFirstByte() throws {
        let server = try LoopbackHTTPServer { _ in
            ServedResponse(body: .bytes([1]), delayBeforeHeaders: .milliseconds(300))
        }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        let elapsed = try measure {
            try client.request("GET", "/slow")
            #expect(try client.readResponse().body == [1])
        }
        #expect(elapsed >= .milliseconds(300))
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        let server = try LoopbackHTTPServer(idleTimeout: .milliseconds(300)) { _ in .ok([1], contentType: "text/plain") }
        defer { server.stop() }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/a")
        _ = try client.readResponse()
        var leftover: [UInt8] = []
        let waited = try measure { leftover = try client.readUntilClosed() }
        #expect(leftover.isEmpty)
        #expect(waited >= .milliseconds(200))
    }

    @Test func manyParallelConnectionsAreAllServed() async throws {
        let server = try LoopbackHTTPServer { request in .ok(Array(request.path.utf8), contentType: "text/plain") }
        defer { server.stop() }

        let port = server.port
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let client = try RawHTTPClient(port: port)
                    try client.request("GET", "/\(index)")
                    return try client.readResponse().text
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<40).map { "/\($0)" }))
        #expect(server.requests.count == 40)
    }

    @Test func stopIsIdempotentAndRefusesNewConnections() throws {
        // A port below the ephemeral range: once this server lets it go, no other test's server (port 0) can be
        // given it, so a refused connection can only mean this one stopped listening.
        let server = try serverBelowTheEphemeralPorts()
        let port = server.port
        server.stop()
        server.stop()
        #expect(throws: RawHTTPClient.Failure.self) { try RawHTTPClient(port: port) }
    }

    private func serverBelowTheEphemeralPorts() throws -> LoopbackHTTPServer {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).first.flatMap { UInt16($0) } ?? 32768
        let first = range > 11_000 ? range - 10_000 : 1024
        for port in (first..<(first + 1000)).shuffled() {
            if let server = try? LoopbackHTTPServer(port: port, handler: { _ in .ok([], contentType: "text/plain") }) { return server }
        }
        throw RawHTTPClient.Failure.connectFailed(EADDRINUSE)
    }

    @Test func stopFromInsideTheHandlerReturnsPromptly() throws {
        let box = Locked<LoopbackHTTPServer?>(nil)
        let stopDuration = Locked<Duration?>(nil)
        let server = try LoopbackHTTPServer { _ in
            stopDuration.value = measure { box.value?.stop() }
            return .ok([1], contentType: "text/plain")
        }
        box.value = server
        defer { box.value = nil }

        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/stop")
        // The client sees the end as soon as stop() shuts its socket, which is before stop() returns.
        #expect(client.readFor(RawHTTPClient.hangGuard).closed)
        // stop() from inside a handler returns (it would deadlock waiting for its own connection).
        while stopDuration.value == nil { Thread.sleep(forTimeInterval: 0.01) }
    }
}
