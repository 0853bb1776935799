import Foundation
import NSEServer
import Testing

/// `nse serve --proxy`: senders nobody here wrote, unchanged, pointed at the emulator by the environment alone.
/// Every push host is answered on loopback and every other host is refused (deny mode) or reaches a server of the
/// test's own (tunnel mode): nothing leaves the machine.
@Suite(.timeLimit(.minutes(10)))
struct ProxyTests {
    /// The variables `nse serve --print-env` prints, as a shell would set them.
    static func printedEnvironment(_ fixture: ServeFixture) throws -> [String: String] {
        let script = try ProxyEnvironment.script(port: fixture.port, dataDirectory: fixture.data)
        var variables: [String: String] = [:]
        for line in script.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            var value = assignment[assignment.index(after: equals)...]
            if let note = value.range(of: "  # ") { value = value[..<note.lowerBound] }
            variables[String(assignment[..<equals])] = value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return variables
    }

    static func title(_ notification: [String: Any]?) -> String? {
        ((notification?["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String
    }

    static func requestHost(_ notification: [String: Any]?) -> String? {
        let headers = (notification?["request"] as? [String: Any])?["headers"] as? [[String]] ?? []
        return headers.first { $0.first == "host" }?.last
    }

    @Test func firebaseAdminAsItsDocsShowReachesThePhones() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        let environment = try Self.printedEnvironment(fixture)
        #expect(environment["HTTPS_PROXY"] == "http://127.0.0.1:\(fixture.port)")
        let answer = try await python(
            "fcm_admin_proxied.py", [ServeFixture.project, ServeFixture.fcmToken, ServeFixture.androidToken], environment: environment)
        #expect((answer["send"] as? String)?.hasPrefix("projects/\(ServeFixture.project)/messages/") == true, "\(answer)")
        #expect((answer["send_each"] as? [String])?.allSatisfy { $0.hasPrefix("projects/") } == true, "\(answer)")
        let iPhone = try await fixture.notifications(ServeFixture.fcmToken)
        #expect(Set(iPhone.compactMap(Self.title)) == ["Order shipped", "Batch 0"])
        #expect(iPhone.allSatisfy { Self.requestHost($0) == "fcm.googleapis.com" })
        let pixel = try await fixture.notifications(ServeFixture.androidToken)
        #expect(pixel.count == 1)
    }

    /// `send_each_async` reads no proxy variable (docs/serve.md says why): with the printed variables and the one
    /// line the docs give, its pushes reach the phones, and its access token came through the proxy from Google's
    /// own token host.
    @Test func firebaseAdminSendEachAsyncWithTheDocumentedLine() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        let answer = try await python(
            "fcm_admin_proxied.py",
            [ServeFixture.project, ServeFixture.fcmToken, ServeFixture.androidToken, "--async-fcm-url", "\(fixture.base)/v1/projects/{0}/messages:send"],
            environment: try Self.printedEnvironment(fixture))
        #expect((answer["send_each_async"] as? [String])?.count == 2, "\(answer)")
        #expect((answer["send_each_async"] as? [String])?.allSatisfy { $0.hasPrefix("projects/\(ServeFixture.project)/messages/") } == true, "\(answer)")
        let iPhone = try await fixture.notifications(ServeFixture.fcmToken)
        #expect(Set(iPhone.compactMap(Self.title)) == ["Order shipped", "Batch 0", "Async 0"])
        // send_each's and send_each_async's.
        #expect(try await fixture.notifications(ServeFixture.androidToken).count == 2)
    }

    /// A proxy URL with a user and password, as many deployments set it: the credentials are sent
    /// (`Proxy-Authorization`) and accepted, by requests (firebase-admin, google-auth) and by curl.
    @Test func proxyCredentialsInTheURLAreAccepted() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        var environment = try Self.printedEnvironment(fixture)
        let withCredentials = "http://backend:s3cret@127.0.0.1:\(fixture.port)"
        for name in ["HTTPS_PROXY", "https_proxy"] { environment[name] = withCredentials }
        let answer = try await python("fcm_admin_proxied.py", [ServeFixture.project, ServeFixture.androidToken], environment: environment)
        #expect((answer["send"] as? String)?.hasPrefix("projects/\(ServeFixture.project)/messages/") == true, "\(answer)")
        let ca = try #require(fixture.server.caCertificate).path
        let curled = try await curl([
            "--proxy", withCredentials, "--noproxy", "", "--cacert", ca, "-H", "authorization: bearer \(providerToken())",
            "-H", "apns-topic: \(ServeFixture.topic)", "--data-binary", #"{"aps":{"alert":{"title":"With credentials"}}}"#,
            "https://api.push.apple.com/3/device/\(ServeFixture.productionToken)",
        ])
        #expect(curled.status == 200)
        #expect(try await fixture.notifications(ServeFixture.productionToken).compactMap(Self.title) == ["With credentials"])
        #expect(try await fixture.notifications(ServeFixture.androidToken).count == 2)
    }

    /// aioapns with its own proxy arguments and the documented fix for its proxy code (docs/serve.md, "aioapns
    /// through the proxy"), to Apple's production host: the push shows on the production iPhone.
    @Test func aioapnsThroughTheProxyReachesTheProductionIPhone() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        let ca = try #require(fixture.server.caCertificate).path
        let answer = try await python(
            "aioapns_proxied.py", [String(fixture.port), ServeFixture.productionToken, ServeFixture.topic, "--with-fix"], environment: ["SSL_CERT_FILE": ca])
        #expect(answer["accepted"] as? Bool == true, "\(answer)")
        #expect(answer["status"] as? String == "200", "\(answer)")
        // aioapns closes a connection that has written nothing for 10 seconds (its INACTIVITY_TIME), answer or not,
        // and sends again on a new one: on a machine loaded enough, the push can arrive twice, never zero times.
        let shown = try await fixture.notifications(ServeFixture.productionToken)
        #expect(!shown.isEmpty)
        #expect(shown.allSatisfy { Self.title($0) == "Sent by aioapns" && Self.requestHost($0) == "api.push.apple.com" })
    }

    @Test(arguments: [
        // The environment follows the host, as APNs's own hosts do: production tokens on api.push.apple.com only.
        ("api.push.apple.com", ServeFixture.productionToken, "--http2", 200, "2"),
        ("api.sandbox.push.apple.com", ServeFixture.token, "--http2", 200, "2"),
        ("api.sandbox.push.apple.com:2197", ServeFixture.token, "--http1.1", 200, "1.1"),
        ("api.push.apple.com", ServeFixture.token, "--http2", 400, "2"),
    ])
    func curlToApplesHostsReachesTheEmulator(host: String, token: String, version: String, status: Int, negotiated: String) async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        let ca = try #require(fixture.server.caCertificate).path
        let answer = try await curl([
            version, "--proxy", fixture.base, "--noproxy", "", "--cacert", ca, "-H", "authorization: bearer \(providerToken())",
            "-H", "apns-topic: \(ServeFixture.topic)", "-H", "apns-push-type: alert",
            "--data-binary", #"{"aps":{"alert":{"title":"Through the proxy"}}}"#, "https://\(host)/3/device/\(token)",
        ])
        #expect(answer.status == status)
        #expect(answer.httpVersion == negotiated)
        if status == 200 {
            // Only the development environment gives apns-unique-id.
            #expect((answer.headers["apns-unique-id"] != nil) == host.hasPrefix("api.sandbox."))
            let shown = try await fixture.notifications(token).first
            #expect(Self.title(shown) == "Through the proxy")
            #expect(Self.requestHost(shown) == host)
        } else {
            #expect(answer.json?["reason"] as? String == "BadDeviceToken")
        }
    }

    @Test func djangoPushNotificationsSendsToARegisteredFCMDevice() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        let answer = try await python(
            "django_push_proxied.py", [ServeFixture.project, ServeFixture.androidToken], environment: try Self.printedEnvironment(fixture))
        #expect((answer["responses"] as? [String])?.first?.hasPrefix("projects/\(ServeFixture.project)/messages/") == true, "\(answer)")
        #expect(answer["active"] as? Bool == true)
        let shown = try await fixture.notifications(ServeFixture.androidToken)
        #expect(shown.count == 1)
        #expect(Self.requestHost(shown.first) == "fcm.googleapis.com")
    }

    @Test func otherHostsAreRefusedWithTheHostAndTheOptionNamed() async throws {
        let fixture = try await ServeFixture.start(proxy: .deny)
        defer { Task { await fixture.stop() } }
        // CONNECT: curl fails the transfer (exit 56) and reports the proxy's status.
        let connect = try await runChild("/usr/bin/curl", [
            "-s", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_connect}", "--proxy", fixture.base, "--noproxy", "",
            "https://push.example.com/send",
        ])
        #expect(connect.status == 56)
        #expect(connect.stdout == "403")
        // An absolute-form plain HTTP request: the same rule, the body says why and what to change.
        let plain = try await curl(["--proxy", fixture.base, "--noproxy", "", "http://push.example.com/send"])
        #expect(plain.status == 403)
        let body = String(decoding: plain.body, as: UTF8.self)
        #expect(body.contains("push.example.com:80"))
        #expect(body.contains("--proxy-other deny"))
        #expect(body.contains("--proxy-other tunnel"))
        // The status line says it too: clients that fail a CONNECT often show only that.
        let statusLine = try await runChild("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--proxy", fixture.base, "--noproxy", "", "http://push.example.com/"])
        #expect(statusLine.stdout.hasPrefix("HTTP/1.1 403 Forbidden by nse serve --proxy-other deny: push.example.com:80\r\n"))
    }

    @Test func tunnelModePassesOtherHostsOnUnchanged() async throws {
        // The other host: a second server of the test's own, TLS with a CA the proxy does not have.
        let upstream = try await ServeFixture.start(tls: true)
        defer { Task { await upstream.stop() } }
        let upstreamCA = try #require(upstream.server.caCertificate).path
        let upstreamTLS = try #require(upstream.server.tlsPort)
        let fixture = try await ServeFixture.start(proxy: .tunnel)
        defer { Task { await fixture.stop() } }
        // Verified against the other server's CA alone: the bytes reached it untouched, ALPN included.
        let tunnelled = try await curl([
            "--http2", "--proxy", fixture.base, "--noproxy", "", "--cacert", upstreamCA, "https://localhost:\(upstreamTLS)/emulator/v1/devices",
        ])
        #expect(tunnelled.status == 200)
        #expect(tunnelled.httpVersion == "2")
        #expect((tunnelled.json?["devices"] as? [Any])?.count == 3)
        // Plain HTTP in absolute-form is forwarded.
        let forwarded = try await curl(["--proxy", fixture.base, "--noproxy", "", "\(upstream.base)/emulator/v1/devices"])
        #expect(forwarded.status == 200)
        #expect((forwarded.json?["devices"] as? [Any])?.count == 3)
        // A host nothing listens on: 502 naming it, instead of a hang.
        let closed = try await runChild("/usr/bin/curl", [
            "-s", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_connect}", "--proxy", fixture.base, "--noproxy", "", "https://127.0.0.1:9/",
        ])
        #expect(closed.stdout == "502")
    }
}
