import Foundation
import NSEServer
import Testing

/// docs/openapi.yaml against a running server: every documented operation is exercised with real requests whose
/// statuses and bodies validate against the documented schemas, and no undocumented method or path is answered
/// with a success (Tests/NSEServerTests/Clients/openapi_check.py, with jsonschema).
@Suite(.timeLimit(.minutes(10)))
struct OpenAPITests {
    @Test func theServerAnswersAsDocsOpenAPIYamlSays() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let result = try await python("openapi_check.py", [
            packageRoot.appendingPathComponent("docs/openapi.yaml").path, String(fixture.port), ServeFixture.token,
            ServeFixture.fcmToken, ServeFixture.project, ServeFixture.topic,
        ])
        let failures = result["failures"] as? [String] ?? ["no result"]
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect((result["checked"] as? [String])?.count == 25)
        #expect((result["answers"] as? Int ?? 0) > 100)
    }
}
