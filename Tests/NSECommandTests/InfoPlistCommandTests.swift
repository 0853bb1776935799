import Foundation
import NSEPipeline
import Testing
import NSEPush
import NSEBatch
import NSEMedia
import NSEReports

/// `--info-plist`: the extension's App Transport Security decides which image hosts load over http.
struct InfoPlistCommandTests {
    private func plist(_ ats: [String: Any]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-info-\(UUID().uuidString).plist")
        try PropertyListSerialization.data(fromPropertyList: ["NSAppTransportSecurity": ats], format: .xml, options: 0).write(to: file)
        return file
    }

    private func process(infoPlist: URL) async throws -> ProcessResult {
        let run = try await runNSE(["process", "samples/payloads/http-url.json", "--media", "samples/media", "--info-plist", infoPlist.path, "--format", "json"])
        return try decodeJSON(ProcessResult.self, run.stdout)
    }

    @Test func anExceptionForTheImageHostLetsItLoadOverHTTP() async throws {
        let file = try plist(["NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true]]])
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await process(infoPlist: file)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
    }

    @Test func anExceptionForAnotherHostDoesNot() async throws {
        let file = try plist(["NSExceptionDomains": ["cdn.other.net": ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await process(infoPlist: file)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.diagnostics.map(\.code) == [.mediaInsecureURL])
    }

    @Test func anUnreadablePlistIsAUsageError() async throws {
        let run = try await runNSE(["process", "samples/payloads/http-url.json", "--info-plist", "/nonexistent/Info.plist"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--info-plist"))
    }
}
