import Foundation
import NSEPipeline
import NSEPush
import Testing

/// The built `nse`, every command over every bundled sample: `lint`, `route` in both app states and `resolve`
/// (FCM messages) give each file the same verdict and findings, `process` gives the verdict `samples/expected.json`
/// states, and never passes a file the static commands fail.
struct AgreementCommandTests {
    static let samples: [String] = {
        let folder = ProcessCommandTests.root.appendingPathComponent("samples/payloads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { "samples/payloads/\($0)" }
    }()

    static let expectedVerdicts: [String: Verdict] = {
        struct Expectation: Decodable { var verdict: Verdict }
        let file = ProcessCommandTests.root.appendingPathComponent("samples/expected.json")
        guard let data = try? Data(contentsOf: file),
              let table = try? JSONDecoder().decode([String: Expectation].self, from: data) else { return [:] }
        return table.mapValues(\.verdict)
    }()

    @Test func everyCommandGivesEachSampleTheSameVerdict() async throws {
        let files = Self.samples
        try #require(files.count > 1)
        let lintRun = try await runNSE(["lint"] + files + ["--format", "json"])
        let lint = try decodeJSON([LintReport].self, lintRun.stdout)
        try #require(lint.count == files.count)
        #expect(lintRun.status == lint.map(\.verdict).max()?.exitStatus)

        for state in ["foreground", "background"] {
            let run = try await runNSE(["route"] + files + ["--app-state", state, "--format", "json"])
            let routes = try decodeJSON([RouteReport].self, run.stdout)
            #expect(run.status == lintRun.status)
            for (route, report) in zip(routes, lint) {
                #expect(route.verdict == report.verdict, "route --app-state \(state) \(report.input)")
                #expect(route.diagnostics.filter { $0.code != .routeDirectChannel } == report.diagnostics, "\(report.input)")
            }
        }

        let messages = lint.filter { $0.inputKind == .fcmV1 }
        try #require(messages.count > 1)
        let resolveRun = try await runNSE(["resolve"] + messages.map(\.input) + ["--platform", "ios", "--format", "json"])
        for (resolution, report) in zip(try decodeJSON([ResolutionReport].self, resolveRun.stdout), messages) {
            #expect(resolution.verdict == report.verdict, "resolve \(report.input)")
            #expect(resolution.diagnostics == report.diagnostics, "\(report.input)")
        }

        let processRun = try await runNSE(["process"] + files + ["--media", "samples/media", "--time-budget", "2", "--format", "json"])
        let results = try decodeJSON([ProcessResult].self, processRun.stdout)
        try #require(results.count == files.count)
        for (result, report) in zip(results, lint) {
            let name = URL(fileURLWithPath: result.input).lastPathComponent
            #expect(result.verdict == Self.expectedVerdicts[name], "process \(name): \(result.diagnostics)")
            #expect((result.outcome == .rejected) == report.rejected, "\(name)")
            if report.verdict == .fail {
                #expect(result.verdict == .fail, "lint fails \(name), so process must")
            }
        }

        // A batch with one push in flight reads every later push, and starts its download, ahead of its turn: the
        // same results as `process` gives, read ahead or not.
        for readAhead in ["1", "0"] {
            let batchRun = try await runNSE(["batch"] + files + [
                "--media", "samples/media", "--time-budget", "2", "--format", "json", "--jobs", "1", "--read-ahead", readAhead])
            let batched = try batchRun.stdout.split(separator: "\n").map { try decodeJSON(ProcessResult.self, String($0)) }
            try #require(batched.count == files.count, "--read-ahead \(readAhead): \(batchRun.stderr)")
            for (result, processed) in zip(batched.sorted { $0.input < $1.input }, results.sorted { $0.input < $1.input }) {
                #expect(result.outcome == processed.outcome && result.imageShown == processed.imageShown, "--read-ahead \(readAhead) \(result.input)")
                #expect(result.diagnostics.map(\.code) == processed.diagnostics.map(\.code), "--read-ahead \(readAhead) \(result.input)")
            }
        }
    }
}
