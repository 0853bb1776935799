import Foundation
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
import Testing

/// Every command gives the same verdict on the same input: `lint`, `route` (both app states) and `resolve` (FCM
/// messages) make the same findings, and `process` (which `batch` and the extension harness run) finds every one
/// of them, adding only what downloading and running the extension reveal.
struct AgreementTests {
    /// Findings only running the extension can make: the download, the attachment, the time budget.
    static func isEmulationFinding(_ code: DiagnosticCode) -> Bool {
        code.rawValue.hasPrefix("media.") || code.rawValue.hasPrefix("firebase.")
            || [.extensionTimeExpired, .extensionHandlerNotCalled, .extensionHandlerCalledTwice, .extensionMemoryLimit, .extensionAttachmentOption].contains(code)
    }

    private static func errors(_ diagnostics: [Diagnostic]) -> Set<DiagnosticCode> {
        Set(diagnostics.filter { $0.severity == .error }.map(\.code))
    }

    @Test(arguments: SampleTests.expectations.keys.sorted())
    func everyCommandGivesTheSameVerdict(name: String) async throws {
        let file = SampleTests.samples.appendingPathComponent("payloads").appendingPathComponent(name)
        let lint = Linter.lint(file: file)

        for state in AppState.allCases {
            let route = DeliveryRoutes.route(file: file, appState: state)
            #expect(route.verdict == lint.verdict, "route --app-state \(state.rawValue): \(route.diagnostics)")
            #expect(route.diagnostics.filter { $0.code != .routeDirectChannel } == lint.diagnostics)
        }
        if lint.inputKind == .fcmV1 {
            let resolve = FCMResolver.resolve(file: file, platform: .ios)
            #expect(resolve.verdict == lint.verdict)
            #expect(resolve.diagnostics == lint.diagnostics)
            #expect(resolve.rejected == lint.rejected)
        }

        let directory = MediaDirectory(root: SampleTests.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { directory.respond(to: $0) }
        defer { server.stop() }
        var profile = DeviceProfile()
        profile.timeBudget = try #require(SampleTests.expectations[name]).budget
        let pipeline = Pipeline(device: profile, hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        let result = await pipeline.run(file: file)

        #expect((result.outcome == .rejected) == lint.rejected, "\(result.outcome)")
        let processErrors = Self.errors(result.diagnostics)
        let lintErrors = Self.errors(lint.diagnostics)
        // Lint's forecast of the download (plain http, a WebP path) is what the download then finds.
        #expect(lintErrors.filter { !Self.isEmulationFinding($0) }.isSubset(of: processErrors), "process: \(result.diagnostics)")
        #expect(processErrors.subtracting(lintErrors).allSatisfy(Self.isEmulationFinding), "lint: \(lint.diagnostics)")
        if lint.verdict != .pass {
            #expect(result.verdict == lint.verdict)
        }
    }
}
