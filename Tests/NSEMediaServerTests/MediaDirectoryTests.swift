import Foundation
import Testing
@testable import NSEMediaServer

/// Serving a folder of sample media, including `.serve.json` sidecars for misbehaving CDNs.
struct MediaDirectoryTests {
    /// A media directory with a server over it.
    struct Fixture {
        let scratch: ScratchDirectory
        let server: LoopbackHTTPServer

        init(_ files: [String: String] = [:]) throws {
            scratch = try ScratchDirectory()
            try scratch.write("media/cat.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])
            for (path, text) in files { try scratch.write("media/" + path, text) }
            // Idle connections are kept far longer than the default 5 s: a test that checks a large response before
            // its next request on the same connection can take longer than that on a starved machine.
            server = try LoopbackHTTPServer(idleTimeout: .seconds(600), handler: MediaDirectory(root: scratch.path + "/media").respond(to:))
        }

        var root: String { scratch.path + "/media" }

        func get(_ target: String, method: String = "GET") throws -> RawHTTPClient.Response {
            let client = try RawHTTPClient(port: server.port)
            try client.request(method, target)
            return try client.readResponse(isHead: method == "HEAD")
        }
    }

    @Test func servesAFileWithItsTypeAndLength() throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }

        let response = try fixture.get("/cat.jpg")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "image/jpeg")
        #expect(response.headers["content-length"] == "9")
        #expect(response.body == [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])

        let head = try fixture.get("/cat.jpg", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "9")
    }

    @Test func servesPercentEncodedNamesInSubfolders() throws {
        let fixture = try Fixture(["album/big cat.png": "png"])
        defer { fixture.server.stop() }

        let response = try fixture.get("/album/big%20cat.png")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "image/png")
        #expect(response.text == "png")
    }

    @Test(arguments: ["/missing.png", "/", "/album", "/album/"])
    func missingFilesAndDirectoriesAre404(target: String) throws {
        let fixture = try Fixture(["album/a.png": "a"])
        defer { fixture.server.stop() }

        let response = try fixture.get(target)
        #expect(response.status == 404)
        #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/album/../../secret.txt", "/%2E%2E%2Fsecret.txt",
        "/./../secret.txt", "/album/%2e%2e/%2e%2e/secret.txt",
    ])
    func dotDotCannotEscapeTheRoot(target: String) throws {
        let fixture = try Fixture(["album/a.png": "a"])
        defer { fixture.server.stop() }
        try fixture.scratch.write("secret.txt", "TOP SECRET")

        let response = try fixture.get(target)
        #expect(response.status == 403 || response.status == 404)
        #expect(!response.text.contains("TOP SECRET"))
    }

    @Test func dotDotInsideTheRootIsResolved() throws {
        let fixture = try Fixture(["album/a.png": "a"])
        defer { fixture.server.stop() }

        #expect(try fixture.get("/album/../cat.jpg").status == 200)
    }

    @Test func symbolicLinkOutOfTheRootIsForbidden() throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let secret = try fixture.scratch.write("secret.txt", "TOP SECRET")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/leak.txt", withDestinationPath: secret)

        let response = try fixture.get("/leak.txt")
        #expect(response.status == 403)
        #expect(!response.text.contains("TOP SECRET"))
    }

    @Test func onlyGetAndHeadAreServed() throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }

        let response = try fixture.get("/cat.jpg", method: "DELETE")
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "GET, HEAD")
    }

    @Test func sidecarAloneRedirectsWithItsStatusAndLocation() throws {
        let fixture = try Fixture(["moved.jpg.serve.json": #"{ "status": 301, "headers": { "Location": "/cat.jpg" } }"#])
        defer { fixture.server.stop() }

        let response = try fixture.get("/moved.jpg")
        #expect(response.status == 301)
        #expect(response.headers["location"] == "/cat.jpg")
        #expect(response.body.isEmpty)
    }

    @Test func sidecarItselfIsNeverServed() throws {
        let fixture = try Fixture(["cat.jpg.serve.json": #"{ "contentType": "image/png" }"#])
        defer { fixture.server.stop() }

        #expect(try fixture.get("/cat.jpg.serve.json").status == 404)
        // ...while it still shapes the file next to it.
        let response = try fixture.get("/cat.jpg")
        #expect(response.headers["content-type"] == "image/png")
        #expect(response.body.count == 9)
    }

    @Test func sidecarHeadersOverrideContentTypeAndAddFields() throws {
        let fixture = try Fixture(["cat.jpg.serve.json": #"""
            { "status": 200, "contentType": "image/png",
              "headers": { "content-type": "text/html", "Content-Disposition": "attachment; filename=x.html" } }
            """#])
        defer { fixture.server.stop() }

        let response = try fixture.get("/cat.jpg")
        #expect(response.headers["content-type"] == "text/html")
        #expect(response.headers["content-disposition"] == "attachment; filename=x.html")
    }

    @Test func padToServesExactlyThatManyBytes() throws {
        let fixture = try Fixture(["big.jpg.serve.json": #"{ "padTo": 3000000 }"#])
        defer { fixture.server.stop() }
        try fixture.scratch.write("media/big.jpg", [0xFF, 0xD8, 0xFF])

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/big.jpg")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "3000000")
        #expect(response.headers["content-type"] == "image/jpeg")
        #expect(response.body.count == 3_000_000)
        #expect(Array(response.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(response.body.dropFirst(3).allSatisfy { $0 == 0 })
        // Well framed: the same connection serves on.
        try client.request("GET", "/cat.jpg")
        #expect(try client.readResponse().body.count == 9)
    }

    /// A paced body sends the file chunk by chunk from where the last chunk ended (sendfile from an offset), then
    /// the padding: every byte in its place, and the connection well framed for the next request.
    @Test func trickledFileArrivesWholeThenItsPadding() throws {
        let fixture = try Fixture([
            "paced.jpg.serve.json": #"{ "body": "trickle", "padTo": 40, "trickleBytesPerChunk": 10, "trickleIntervalMs": 1 }"#,
        ])
        defer { fixture.server.stop() }
        let file = (1...25).map { UInt8($0) }
        try fixture.scratch.write("media/paced.jpg", file)

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/paced.jpg")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "40")
        #expect(response.body == file + [UInt8](repeating: 0, count: 15))
        try client.request("GET", "/cat.jpg")
        #expect(try client.readResponse().body.count == 9)
    }

    @Test func truncateSendsHalfOfTheDeclaredSampleThenCloses() throws {
        let fixture = try Fixture(["cat.jpg.serve.json": #"{ "body": "truncate" }"#])
        defer { fixture.server.stop() }

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/cat.jpg")
        let head = try client.readHead()
        #expect(head.headers["content-length"] == "9")
        #expect(try client.readUntilClosed() == [0xFF, 0xD8, 0xFF, 0xE0])
    }

    @Test func truncateWithDeclaredLengthSendsTheWholeFileThenCloses() throws {
        let fixture = try Fixture(["cat.jpg.serve.json": #"{ "body": "truncate", "declaredLength": 5000 }"#])
        defer { fixture.server.stop() }

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/cat.jpg")
        #expect(try client.readHead().headers["content-length"] == "5000")
        #expect(try client.readUntilClosed().count == 9)
    }

    @Test func trickleDelayAndStallFromSidecars() throws {
        let fixture = try Fixture([
            "slow.jpg.serve.json": #"{ "body": "trickle", "padTo": 40, "trickleBytesPerChunk": 10, "trickleIntervalMs": 50 }"#,
            "late.jpg.serve.json": #"{ "delayMs": 250, "status": 503 }"#,
            "hang.jpg.serve.json": #"{ "body": "stall" }"#,
        ])
        defer { fixture.server.stop() }

        var response: RawHTTPClient.Response?
        let trickled = try measure { response = try fixture.get("/slow.jpg") }
        #expect(response?.body.count == 40)
        #expect(trickled >= .milliseconds(150))

        let delayed = try measure { response = try fixture.get("/late.jpg") }
        #expect(response?.status == 503)
        #expect(response?.body.isEmpty == true)
        #expect(delayed >= .milliseconds(250))

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/hang.jpg")
        #expect(try client.readHead().headers["content-length"] == "1000")
        #expect(client.readFor(.milliseconds(200)).bytes.isEmpty)
    }

    @Test func endlessFromSidecarNeverEnds() throws {
        let fixture = try Fixture(["forever.jpg.serve.json": #"{ "body": "endless" }"#])
        defer { fixture.server.stop() }

        let client = try RawHTTPClient(port: fixture.server.port)
        try client.request("GET", "/forever.jpg")
        #expect(try client.readHead().headers["content-length"] == nil)
        #expect(try client.readBytes(1_000_000).count == 1_000_000)
    }

    @Test func redirectLoopPointsBackAtItselfWithARisingCounter() throws {
        let fixture = try Fixture(["loop dir/again.jpg.serve.json": #"{ "body": "redirect-loop" }"#])
        defer { fixture.server.stop() }

        let first = try fixture.get("/loop%20dir/again.jpg")
        #expect(first.status == 302)
        #expect(first.headers["location"] == "/loop%20dir/again.jpg?loop=1")
        let second = try fixture.get("/loop%20dir/again.jpg?loop=1")
        #expect(second.headers["location"] == "/loop%20dir/again.jpg?loop=2")
    }

    @Test(arguments: [
        (#"{ "status": "301" }"#, "\"status\""),
        (#"{ "staus": 301 }"#, "unknown key \"staus\""),
        (#"{ "body": "explode" }"#, "\"body\" must be one of"),
        (#"{ "padTo": 10, "body": "stall" }"#, "\"padTo\" only applies"),
        (#"{ "delayMs": 1.5 }"#, "\"delayMs\""),
        (#"{ "headers": { "X-A": 1 } }"#, "header \"X-A\""),
        (#"{ "body": "truncate", "declaredLength": 3 }"#, "must exceed"),
        (#"[1, 2]"#, "not a JSON object"),
    ])
    func invalidSidecarGets500NamingTheProblem(json: String, expected: String) throws {
        let fixture = try Fixture(["cat.jpg.serve.json": json])
        defer { fixture.server.stop() }

        let response = try fixture.get("/cat.jpg")
        #expect(response.status == 500)
        #expect(response.text.contains("cat.jpg.serve.json"))
        #expect(response.text.contains(expected.replacingOccurrences(of: "\"", with: "&quot;")))
    }

    @Test(arguments: [
        ("a.jpg", "image/jpeg"), ("a.JPEG", "image/jpeg"), ("a.png", "image/png"), ("a.gif", "image/gif"),
        ("a.webp", "image/webp"), ("a.HEIC", "image/heic"), ("a.bmp", "image/bmp"), ("a.svg", "image/svg+xml"),
        ("a.mp4", "video/mp4"), ("a.mp3", "audio/mpeg"), ("a.json", "application/json"), ("a.html", "text/html"),
        ("a.txt", "text/plain"), ("noextension", "application/octet-stream"), ("a.xyz", "application/octet-stream"),
        (".hidden", "application/octet-stream"), ("dir.png/file", "application/octet-stream"),
    ])
    func contentTypeFollowsTheExtension(name: String, expected: String) {
        #expect(MediaDirectory.contentType(forFileName: name) == expected)
    }

    @Test func normalizationIsLexicalAndNeverClimbsAboveTheRoot() {
        #expect(MediaDirectory.normalizedComponents(of: "/a/./b/../c.png") == .inside(["a", "c.png"]))
        #expect(MediaDirectory.normalizedComponents(of: "//a//b") == .inside(["a", "b"]))
        #expect(MediaDirectory.normalizedComponents(of: "/a/../..") == .escapes)
        #expect(MediaDirectory.normalizedComponents(of: "/a\u{0}b") == .invalid)
        #expect(MediaDirectory.normalizedComponents(of: "*") == .invalid)
    }
}
