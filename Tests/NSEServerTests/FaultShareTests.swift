import Foundation
import NSEServer
import Testing

/// Faults as a share of requests: exactly that share of every 100, at places a seed fixes, so a backend's retry
/// logic is tested against scattered failures and the test still asserts exact counts.
/// The time limit is a hang guard: 520 requests in turn took over two minutes on a machine loaded 40 deep.
@Suite(.timeLimit(.minutes(10)))
struct FaultShareTests {
    /// Sends `count` APNs requests in turn over one HTTP/2 connection (httpx) and gives their statuses.
    static func statuses(_ fixture: ServeFixture, count: Int) async throws -> [Int] {
        let step = ["token": ServeFixture.token, "topic": ServeFixture.topic, "jwt": providerToken()]
        let steps = String(decoding: try JSONSerialization.data(withJSONObject: Array(repeating: step, count: count)), as: UTF8.self)
        let answer = try await python("apns_one_connection.py", [String(fixture.port), steps])
        return (answer["answers"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? Int }
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
