import Foundation
import NSEServer
import Testing

/// Faults as a share of requests: exactly that share of every 100, at places a seed fixes, so a backend's retry
/// logic is tested against scattered failures and the test still asserts exact counts.
@Suite(.timeLimit(.minutes(2)))
struct FaultShareTests {
    /// Sends `count` APNs requests in turn over one curl run (one HTTP/2 connection) and gives their statuses.
    static func statuses(_ fixture: ServeFixture, count: Int) async throws -> [Int] {
        var arguments = ["-s", "--http2-prior-knowledge", "-w", "%{http_code}\\n", "-H", "authorization: bearer \(providerToken())",
                         "-H", "apns-topic: \(ServeFixture.topic)", "--data-binary", #"{"aps":{"alert":"Hi"}}"#]
        for _ in 0..<count { arguments += ["-o", "/dev/null", fixture.base + "/3/device/\(ServeFixture.token)"] }
        let run = try await runChild("/usr/bin/curl", arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").compactMap { Int($0) }
    }

    static func plan(_ fixture: ServeFixture, _ body: String) async throws -> CurlAnswer {
        try await curl(["-H", "content-type: application/json", "--data-binary", body, fixture.base + "/emulator/v1/faults"])
    }

    @Test func tenPercentIsExactlyTenInAHundredAtPlacesTheSeedFixes() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let planned = try await Self.plan(fixture, #"{"service": "apns", "status": 503, "percent": 10, "seed": 42}"#)
        #expect(planned.json?["seed"] as? Int == 42)
        let first = try await Self.statuses(fixture, count: 200)
        #expect(first.count == 200)
        #expect(first.filter { $0 == 503 }.count == 20)
        #expect(first.prefix(100).filter { $0 == 503 }.count == 10)
        #expect(Set(first) == [200, 503])

        // The same seed again: the same places.
        #expect(try await Self.plan(fixture, #"{"service": "apns", "status": 503, "percent": 10, "seed": 42}"#).status == 200)
        #expect(try await Self.statuses(fixture, count: 200) == first)
        // Another seed: the same count, other places.
        #expect(try await Self.plan(fixture, #"{"service": "apns", "status": 503, "percent": 10, "seed": 43}"#).status == 200)
        let other = try await Self.statuses(fixture, count: 100)
        #expect(other.filter { $0 == 503 }.count == 10)
        #expect(other != Array(first.prefix(100)))
        // Cleared: every request is answered again.
        #expect(try await curl(["-X", "DELETE", fixture.base + "/emulator/v1/faults"]).status == 204)
        #expect(try await Self.statuses(fixture, count: 20) == Array(repeating: 200, count: 20))
    }

    @Test func shareWithoutSeedSaysTheSeedItDrew() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let planned = try await Self.plan(fixture, #"{"service": "fcm", "status": 429, "percent": 100}"#)
        #expect(planned.status == 200)
        #expect(planned.json?["seed"] is Int)
        let answer = try await curl(["--data-binary", "{}", fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send"])
        #expect(answer.status == 429)
        for body in [#"{"service": "fcm", "status": 429, "percent": 0}"#, #"{"service": "fcm", "status": 429, "percent": 101}"#,
                     #"{"service": "fcm", "status": 429, "percent": 10, "count": 3}"#, #"{"service": "fcm", "status": 429, "count": 3, "seed": 1}"#,
                     #"{"service": "fcm", "status": 429, "percent": 10, "seed": -1}"#] {
            #expect(try await Self.plan(fixture, body).status == 400, "\(body)")
        }
    }
}
