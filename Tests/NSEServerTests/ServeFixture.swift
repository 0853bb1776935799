import Foundation
import NSEConcurrency
import NSEServer
import Synchronization
import Testing

/// `nse serve` started in-process on a free loopback port with a data folder of its own.
struct ServeFixture {
    static let token = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let productionToken = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let topic = "com.example.shop"
    static let fcmToken = "fcm-token-ana:APA91bHexample"
    static let androidToken = "fcm-token-ben:APA91bHexample"
    static let project = "shop-test"

    /// An iPhone (development and production tokens) and an Android phone, as a devices file gives them.
    static let devicesJSON = """
        {"devices": [
          {"name": "Ana's iPhone", "platform": "ios", "apns": {"token": "\(token)", "environment": "development"},
           "fcm": {"token": "\(fcmToken)", "project": "\(project)", "topics": ["news"]}, "bundleId": "\(topic)"},
          {"name": "Carl's iPhone", "apns": {"token": "\(productionToken)", "environment": "production"}, "bundleId": "\(topic)"},
          {"name": "Ben's Pixel", "platform": "android", "fcm": {"token": "\(androidToken)", "project": "\(project)"}}
        ]}
        """

    let server: NSEServer
    let data: URL

    var port: Int { server.port }
    var base: String { "http://127.0.0.1:\(server.port)" }

    /// The idle and request timeouts are minutes, not the server's defaults: the server runs inside the test
    /// process, which shares two cores with the rest of `make test`, and a test about something else must not see
    /// its request reset as a slow client's. The tests of the deadlines themselves pass short ones.
    static func start(
        devices: String = devicesJSON, acceptAnyToken: Bool = false, data: URL? = nil, tls: Bool = false,
        idleTimeout: Duration = .seconds(300), requestTimeout: Duration = .seconds(300), maxConnections: Int? = nil,
        proxy: ProxyOtherHosts? = nil, clock: @escaping @Sendable () -> Date = { Date() }, pipeline: PhonePipeline.Defaults? = nil,
        retiredTokenLimit: Int? = nil, sharedDownloads: Bool = true
    ) async throws -> ServeFixture {
        let folder = data ?? FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-test-\(UUID().uuidString)")
        if let data, !FileManager.default.fileExists(atPath: data.path) {
            // A restart on a folder `stop()` deleted would start afresh and test nothing it meant to.
            throw ServeSetupError("\(data.path) is gone: stop the server to restart with `stop(keepingData: true)`, which leaves its data folder.")
        }
        ServeFixture.leftovers.withLock { $0.insert(folder) }
        let deviceFile = folder.appendingPathExtension("devices.json")
        try Data(devices.utf8).write(to: deviceFile)
        var configuration = NSEServer.Configuration(dataDirectory: folder)
        let file = try DevicesFile.read(deviceFile)
        configuration.devices = file.devices
        configuration.providerKeys = file.providerKeys
        configuration.acceptAnyToken = acceptAnyToken
        configuration.clock = clock
        if tls { configuration.tlsPort = 0 }
        configuration.proxy = proxy
        if let pipeline { configuration.pipeline = pipeline }
        configuration.idleTimeout = idleTimeout
        configuration.requestTimeout = requestTimeout
        configuration.maxConnections = maxConnections
        if let retiredTokenLimit { configuration.retiredTokenLimit = retiredTokenLimit }
        configuration.sharedDownloads = sharedDownloads
        return ServeFixture(server: try await NSEServer.start(configuration), data: folder)
    }

    /// Stops the server and deletes its data folder and devices file, so the tests leave nothing in TMPDIR.
    /// `keepingData` leaves them for a server restarted on the same folder (`start(data:)`), whose stop deletes them.
    func stop(keepingData: Bool = false) async {
        await server.stop()
        guard !keepingData else { return }
        Self.remove(data)
        Self.leftovers.withLock { _ = $0.remove(data) }
    }

    private static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.removeItem(at: folder.appendingPathExtension("devices.json"))
    }

    /// The data folders of fixtures not stopped yet. A test stops its fixture in a task its `defer` starts, which
    /// the test process may end before running (after its last tests): these are deleted when the process exits.
    static let leftovers: Mutex<Set<URL>> = {
        atexit { ServeFixture.leftovers.withLock { $0.forEach(ServeFixture.remove) } }
        return Mutex([])
    }()

    /// How many push lines with this apns-id or message name the journal has, after checking that each is followed
    /// at once by its delivery line naming the push line's byte offset: the push was delivered before its answer, in
    /// the same write (0 when there is none; a test failure for each that is not so).
    func pushesDeliveredInTheirWrite(id: String) throws -> Int {
        let journal = try Data(contentsOf: data.appendingPathComponent("journal.jsonl"))
        var offset = 0
        var lines: [(offset: Int, object: [String: Any])] = []
        for line in journal.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] { lines.append((offset, object)) }
            offset += line.count + 1
        }
        var pushes = 0
        for (index, line) in lines.enumerated() where line.object["type"] as? String == "push" && line.object["id"] as? String == id {
            pushes += 1
            let next = index + 1 < lines.count ? lines[index + 1].object : [:]
            #expect(next["type"] as? String == "delivery" && next["push"] as? Int == line.offset && next["seq"] as? Int == line.object["seq"] as? Int,
                    "push \(line.object["seq"] ?? "?") is not followed by its delivery")
        }
        return pushes
    }

    /// The device's notifications once none is pending (the control API waits for the pipeline: no sleeping).
    func notifications(_ token: String = ServeFixture.token) async throws -> [[String: Any]] {
        let answer = try await curl(["\(base)/emulator/v1/devices/\(token)/notifications?settled=1"])
        #expect(answer.status == 200)
        return try #require(answer.json?["notifications"] as? [[String: Any]])
    }
}

/// A provider token as APNs wants it: ES256 header with a key ID, the team as issuer, issued at `issuedAt`. The
/// signature part is not a real one: the emulator checks the token's form and age, not yet its signature.
func providerToken(issuedAt: Date = Date(), header: String = #"{"alg":"ES256","kid":"KEY1234567"}"#) -> String {
    func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return base64URL(header) + "." + base64URL(#"{"iss":"TEAM123456","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#) + ".c2lnbmF0dXJl"
}

/// One answer as curl received it.
struct CurlAnswer {
    var status: Int
    /// "2" for HTTP/2, "1.1" for HTTP/1.1.
    var httpVersion: String
    /// Lowercased names; a repeated header keeps its last value.
    var headers: [String: String]
    var body: Data

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// Runs curl (a client nobody here wrote) with `arguments`, reading the status, version, headers and body.
func curl(_ arguments: [String]) async throws -> CurlAnswer {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let headersFile = scratch.appendingPathComponent("headers").path
    let bodyFile = scratch.appendingPathComponent("body").path
    let run = try await runChild("/usr/bin/curl", ["-s", "--max-time", "60", "-D", headersFile, "-o", bodyFile, "-w", "%{http_code} %{http_version}"] + arguments)
    #expect(run.status == 0, "curl failed: \(run.stderr)")
    let written = run.stdout.split(separator: " ")
    var headers: [String: String] = [:]
    let headerText = (try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? ""
    for line in headerText.split(whereSeparator: \.isNewline) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return CurlAnswer(
        status: written.first.flatMap { Int($0) } ?? 0, httpVersion: written.count > 1 ? String(written[1]) : "",
        headers: headers, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data())
}

/// An APNs request with curl over HTTP/2 with prior knowledge, as Apple's documentation shows it with curl.
func apns(
    _ fixture: ServeFixture, token: String = ServeFixture.token, payload: String = #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"}}}"#,
    headers: [String: String] = [:], authorization: String? = "bearer \(providerToken())", topic: String? = ServeFixture.topic,
    method: String = "POST", path: String? = nil, extra: [String] = []
) async throws -> CurlAnswer {
    var arguments = ["--http2-prior-knowledge", "-X", method]
    if let authorization { arguments += ["-H", "authorization: \(authorization)"] }
    if let topic { arguments += ["-H", "apns-topic: \(topic)"] }
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
    if method == "POST" { arguments += ["--data-binary", payload] }
    return try await curl(arguments + extra + [fixture.base + (path ?? "/3/device/\(token)")])
}

struct ChildRun: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The package's root, where the client scripts are found and run from.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs a program to its end, its waiting on the blocking executor (never on the two cooperative threads).
func runChild(_ executable: String, _ arguments: [String]) async throws -> ChildRun {
    try await BlockingExecutor.shared.run("test.serve.child") {
        Result {
            let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-stderr-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: errFile) }
            let child = try ChildProcess(
                executable, arguments, currentDirectory: packageRoot.path, standardInput: .null, standardOutput: .pipe,
                standardError: .file(errFile.path))
            let stdout = child.standardOutput?.readToEndRetryingInterruptions() ?? Data()
            let termination = child.wait()
            return ChildRun(
                status: termination.status, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: (try? Data(contentsOf: errFile)) ?? Data(), as: UTF8.self))
        }
    }.get()
}

/// Runs one of the Python client scripts (Tests/NSEServerTests/Clients) and decodes the JSON it prints;
/// `environment` is added to the test's own.
func python(_ script: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> [String: Any] {
    let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let run = try await runChild("/usr/bin/env", variables + ["python3", "Tests/NSEServerTests/Clients/\(script)"] + arguments)
    #expect(run.status == 0, "\(script) failed: \(run.stderr)")
    let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
    return try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(script) printed: \(run.stdout) \(run.stderr)")
}
