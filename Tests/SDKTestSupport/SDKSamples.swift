import Foundation
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import UserNotifications

/// What `samples/sdks/<sdk>/expected.json` says of one payload: the outcome, whether the image shows, the codes
/// that must appear (others may too) and the verdict, as `samples/expected.json` does for the Firebase samples.
public struct SDKSampleExpectation: Decodable, Sendable {
    public var outcome: Outcome
    public var imageShown: Bool
    public var codes: [String]
    public var verdict: Verdict

    /// The budget to run the sample with (`sampleBudget(expecting:)`).
    public var budget: Duration { sampleBudget(expecting: codes) }

    /// The grace after `serviceExtensionTimeWillExpire()` a sample needs, if longer than a test's own: one expected
    /// to call the handler twice makes its second call in the grace (a cancelled download's completion, several
    /// threads away), which a starved machine once delayed past 1 s. The run still ends when the helper does.
    public var expiryGrace: Duration? {
        codes.contains(DiagnosticCode.extensionHandlerCalledTwice.rawValue) ? .seconds(10) : nil
    }
}

/// The budget to run a bundled sample with, from the codes its expected.json lists: 2 s for a sample expected to run
/// out of time, so the suite stays quick; iOS's own 30 s for every other, which a starved machine cannot run into.
public func sampleBudget(expecting codes: [String]) -> Duration {
    let timeOuts = [DiagnosticCode.extensionTimeExpired, .mediaTimeout].map(\.rawValue)
    return codes.contains(where: timeOuts.contains) ? .seconds(2) : .seconds(30)
}

/// The bundled SDK samples and a loopback server for their media, shared by every SDK's tests.
public enum SDKSamples {
    /// An origin whose connections are refused: port 1, below the ephemeral range, where no test's server listens.
    /// (Not a stopped server's port: another test's server may be given it the moment it is free.)
    public static let refusedOrigin = "http://127.0.0.1:1"

    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func folder(_ sdk: String) -> URL {
        root.appendingPathComponent("samples/sdks/\(sdk)")
    }

    /// The SDK's expected.json; a missing or broken file throws, so a suite cannot pass with nothing to run.
    public static func expectations(_ sdk: String) throws -> [String: SDKSampleExpectation] {
        let data = try Data(contentsOf: folder(sdk).appendingPathComponent("expected.json"))
        return try JSONDecoder().decode([String: SDKSampleExpectation].self, from: data)
    }

    /// The payload names expected.json lists, for parameterized tests (empty when it cannot be read).
    public static func names(_ sdk: String) -> [String] {
        ((try? expectations(sdk)) ?? [:]).keys.sorted()
    }

    /// A loopback server that serves samples/media, standing for every media host.
    public static func mediaServer() throws -> LoopbackHTTPServer {
        let media = MediaDirectory(root: root.appendingPathComponent("samples/media").path)
        return try LoopbackHTTPServer { media.respond(to: $0) }
    }

    /// The device the SDK tests use: iOS's, with the budget a test gives (a short one where it expects the time-out).
    public static func profile(budget: Duration = .seconds(30)) -> DeviceProfile {
        var profile = DeviceProfile()
        profile.timeBudget = budget
        return profile
    }

    /// The command line's path for `--sdk <sdk>`: the SDK's built-in extension run by the harness, as the
    /// emulator runs Firebase's.
    public static func emulator(
        _ sdk: PushSDK, changes: ContentChanges = ContentChanges(), profile: DeviceProfile = profile(), origin: String, containerSeed: URL? = nil
    ) -> Emulator {
        var runner = HarnessRunner(expiryGrace: .milliseconds(400), memoryMeasurement: .off, changesContent: !changes.isEmpty) {
            BuiltInExtensions.make(sdk, changes: changes) ?? UNNotificationServiceExtension()
        }
        runner.reportsActivity = false
        runner.containerSeed = containerSeed
        return Emulator(profile: profile, extensionRunner: runner, hostMapping: MediaHostMapping(origin: URL(string: origin)!))
    }

    /// Runs a payload given as JSON text through the SDK's built-in extension.
    public static func process(
        _ sdk: PushSDK, _ json: String, changes: ContentChanges = ContentChanges(), profile: DeviceProfile = profile(), origin: String, containerSeed: URL? = nil
    ) async throws -> ProcessResult {
        let push = try PushReader.parse(Data(json.utf8), fileExtension: "json")
        return await emulator(sdk, changes: changes, profile: profile, origin: origin, containerSeed: containerSeed).process(push, input: "payload")
    }

    /// The codes of a result's findings, as strings (the form expected.json uses).
    public static func codes(_ result: ProcessResult) -> [String] {
        result.diagnostics.map(\.code.rawValue)
    }
}

extension SDKSamples {
    /// Runs an app's extension (the SDK's documented file) over one of the SDK's samples, media served from
    /// loopback, and returns what the phone shows with what expected.json says of it.
    public static func runSample<Extension: UNNotificationServiceExtension>(
        _ type: Extension.Type, sdk: String, name: String, expiryGrace: Duration = .milliseconds(400)
    ) async throws -> (delivered: DeliveredNotification, expected: SDKSampleExpectation) {
        let expected = try expectations(sdk)[name] ?? { throw SampleMissing(name: name) }()
        let server = try mediaServer()
        defer { server.stop() }
        var harness = ExtensionHarness(profile: profile(budget: expected.budget), hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.expiryGrace = expected.expiryGrace ?? expiryGrace
        harness.memoryMeasurement = .off
        let delivered = try await harness.run(type, payloadFile: folder(sdk).appendingPathComponent(name))
        return (delivered, expected)
    }

    /// The payload files in the SDK's sample folder, to compare with expected.json's names.
    public static func sampleFiles(_ sdk: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder(sdk).path).filter { $0.hasSuffix(".json") && $0 != "expected.json" })
    }

    /// A delivered notification's codes as expected.json lists them: without `extension.no-attachment` (the app's
    /// own extension gets it where nothing else is an error; `nse process --sdk` does not), and on a time-out
    /// without `media.timeout` (a download still running when iOS ends the extension is stopped by its own
    /// deadline or by the end of the run, at the same instant: which comes first is a race).
    /// `ignoring` names further codes only the app's own extension file produces.
    public static func comparableCodes(_ delivered: DeliveredNotification, expected: SDKSampleExpectation, ignoring: Set<String> = []) -> Set<String> {
        let codes = Set(delivered.diagnostics.map(\.code.rawValue)).subtracting(ignoring.union(["extension.no-attachment"]))
        return expected.outcome == .bestAttempt ? codes.subtracting(["media.timeout"]) : codes
    }

    struct SampleMissing: Error {
        var name: String
    }
}
