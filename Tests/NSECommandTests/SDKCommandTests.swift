import Foundation
import NSEHarness
import NSEPipeline
import NSEPush
import Testing

/// `--sdk` on process, batch and extension, through the real executable and the bundled samples.
struct SDKCommandTests {
    private let media = ["--media", "samples/media", "--time-budget", "2"]

    @Test func autoDetectsOneSignalsPayloadAndSaysWhy() async throws {
        let run = try await runNSE(["process", "samples/sdks/onesignal/image-jpg.json", "--format", "json"] + media)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        #expect(result.helper?.sdk == .onesignal)
        #expect(result.helper?.selection == .detected)
        #expect(result.helper?.reason.contains("`att`") == true)
        #expect(result.imageShown)
    }

    @Test func autoOnSeveralSDKsPayloadsPicksEachOnesHelper() async throws {
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "samples/xcode-extension/payloads/new-arrivals.json", "samples/sdks/onesignal/webp.json", "--format", "json"] + media)
        let results = try decodeJSON([ProcessResult].self, run.stdout)
        #expect(results.map { $0.helper?.sdk } == [.firebase, .firebase, .onesignal])
        #expect(results.map { $0.helper?.selection } == [.detected, .default, .detected])
        #expect(run.status == 1)
    }

    @Test func anAmbiguousPayloadIsAWarningNamingTheSDKs() async throws {
        let run = try await runNSE(["process", "samples/sdks/compare/filename-query.json", "--format", "text"] + media)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("helper   OneSignal (detected: the payload has `att`, `custom`, OneSignal's keys)"))
        #expect(run.stdout.contains("warning sdk.detect.ambiguous: The payload has keys of several SDKs: Firebase (`fcm_options`, `gcm.message_id`), OneSignal (`att`, `custom`)."))
    }

    @Test func anExplicitSDKRunsThatHelperEvenOnAnotherSDKsPayload() async throws {
        let run = try await runNSE(["process", "samples/sdks/compare/filename-query.json", "--sdk", "firebase", "--format", "json"] + media)
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        #expect(result.helper?.sdk == .firebase)
        #expect(result.helper?.selection == .explicit)
        #expect(!result.imageShown)
        #expect(result.diagnostics.contains { $0.code == .mediaUnrecognizedType })
        #expect(!result.diagnostics.contains { $0.code == .sdkDetectAmbiguous })
        #expect(run.status == 1)
    }

    @Test func allShowsTheHelpersSideBySideWhereTheyDisagree() async throws {
        let run = try await runNSE(["process", "samples/sdks/compare/filename-query.json", "--sdk", "all", "--format", "text"] + media)
        // The detected helper (OneSignal) shows the image: its verdict is the exit status.
        #expect(run.status == 0, "\(run.stdout)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let cells = lines.map { $0.split(separator: " ").map(String.init) }
        #expect(cells.contains { $0.prefix(2) == ["Firebase", "none"] && $0.last == "media.unrecognized-type" })
        #expect(cells.contains { $0.prefix(5) == ["*", "OneSignal", "shown", "public.jpeg", "600x300"] })
    }

    @Test func allAsJSONHasARowPerSDK() async throws {
        let run = try await runNSE(["process", "samples/sdks/compare/webp.json", "--sdk", "all", "--format", "json"] + media)
        #expect(run.status == 1)
        let comparison = try decodeJSON(SDKComparison.self, run.stdout)
        #expect(comparison.helpers.map(\.sdk) == PushSDK.allCases)
        #expect(comparison.detected.sdk == .onesignal)
        let firebase = try #require(comparison.helpers.first { $0.sdk == .firebase })
        let onesignal = try #require(comparison.helpers.first { $0.sdk == .onesignal })
        #expect(firebase.reason?.code == .mediaUnsupportedFormat)
        #expect(onesignal.reason?.code == .sdkOneSignalUnsupportedType)
        #expect(comparison.helpers.allSatisfy { $0.outcome != nil })
        #expect(comparison.detection.map(\.code) == [.sdkDetectAmbiguous])
    }

    @Test func batchTakesTheSDKAndSaysWhichHelperRan() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("nse-sdk-batch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await runNSE(["batch", "samples/sdks/onesignal/image-jpg.json", "samples/sdks/onesignal/filename-query.json", "--sdk", "onesignal", "--out", out.path, "--quiet"] + media)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("helpers: onesignal 2"))
        #expect(run.stdout.contains("images: 2 of the 2 requested would show"))
        let report = try String(contentsOf: out.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(report.contains(#""selection" : "explicit""#))
    }

    @Test func batchRefusesAllWithAPointerToProcess() async throws {
        let run = try await runNSE(["batch", "samples/sdks/onesignal", "--sdk", "all"] + media)
        #expect(run.status == 2)
        #expect(run.stderr.contains("nse process --sdk all"))
    }

    @Test func extensionRefusesAll() async throws {
        let run = try await runNSE(["extension", "samples/extension/sdks/onesignal", "--payload", "samples/sdks/onesignal/image-jpg.json", "--sdk", "all"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("an extension runs its own code"))
    }
}
