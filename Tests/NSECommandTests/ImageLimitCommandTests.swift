import Foundation
import NSEPipeline
import NSEPush
import Testing

/// The image-check limits as options of the real executable: each reaches the checker and stops the bundled
/// sample that passes under the defaults, with that limit's own code; values that cannot work are usage errors.
struct ImageLimitCommandTests {
    @Test(arguments: [
        (["samples/payloads/jpeg-ok.json", "--max-pixel-work", "1000"], DiagnosticCode.mediaDecodePixelWork),
        (["samples/payloads/gif-animated-ok.json", "--max-frames", "1"], .mediaDecodeFrames),
        (["samples/payloads/png-ok.json", "--max-decode-memory", "1", "--max-pixels", "100000000"], nil),
    ])
    func eachOptionReachesTheChecker(arguments: [String], code: DiagnosticCode?) async throws {
        let run = try await runNSE(["process"] + arguments + ["--media", "samples/media", "--format", "json"])
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        if let code {
            #expect(run.status == 1, "\(run.stderr)")
            #expect(result.diagnostics.filter { $0.severity == .error }.map(\.code) == [code])
        } else {
            // 1 MiB is plenty for a small PNG's rows: the smallest allowed value still checks ordinary images.
            #expect(run.status == 0, "\(run.stderr) \(run.stdout)")
        }
    }

    @Test(arguments: [
        ["--max-decode-memory", "0"], ["--max-decode-memory", "1048577"], ["--max-pixel-work", "0"],
        ["--max-frames", "0"], ["--max-scans", "0"], ["--max-scans", "-1"],
    ])
    func unusableLimitsAreUsageErrors(option: [String]) async throws {
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json"] + option)
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stderr.contains(option[0]), "\(run.stderr)")
    }
}
