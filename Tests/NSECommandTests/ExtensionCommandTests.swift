import Foundation
import NSEPipeline
import NSETestSupport
import Testing
import NSEPush
import NSEBatch
import NSEReports

/// `nse extension` as the README documents it, on the Xcode-style sample folder. The first build compiles nse's
/// modules into the generated package (minutes on two cores); the package is cached in .build, so later runs of
/// this suite only run the payloads.
@Suite(.serialized)
struct ExtensionCommandTests {
    /// Where the test keeps the generated package between runs of the suite.
    static let cache = ProcessCommandTests.root.appendingPathComponent(".build/nse-extension-test-cache").path

    /// The README's command, word for word (plus --format json, which is the default when piped anyway).
    static let documented = [
        "extension", "samples/xcode-extension/NotificationService",
        "--payload", "samples/xcode-extension/payloads", "--media", "samples/media",
    ]

    @Test(.timeLimit(.minutes(20)))
    func theXcodeSampleBuildsAndShowsWhatThePhoneShows() async throws {
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("nse-extension-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }
        let first = try await runNSE(Self.documented + ["--format", "json"], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(first.status == 1, "the missing image fails: \(first.stderr)")
        try checkSampleResults(first.stdout)

        // Unchanged sources: no build at all, the same results.
        let again = try await runNSE(Self.documented + ["--format", "json", "--junit", junit.path], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(again.status == 1)
        #expect(!again.stderr.contains("building"), "\(again.stderr)")
        try checkSampleResults(again.stdout)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="nse extension" tests="2" failures="1""#))

        let text = try await runNSE(Self.documented + ["--format", "text"], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(text.stdout.contains("samples/xcode-extension/payloads/new-arrivals.json (apns)\n  OK: extension ran, image shown"))
        // docs/extensions.md shows this run's output: it must still be what the command prints.
        let docs = try String(contentsOf: ProcessCommandTests.root.appendingPathComponent("docs/extensions.md"), encoding: .utf8)
        let block = try #require(docs.components(separatedBy: "<!-- checked by ExtensionCommandTests").dropFirst().first?
            .components(separatedBy: "```").dropFirst().first)
        let documented = block.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast().map(String.init)
        var printed = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if printed.last == "" { printed.removeLast() }
        #expect(exampleMismatch(documented, against: printed, allowsMore: false, normalize: ReadmeExampleTests.normalize) == nil)
    }

    private func checkSampleResults(_ json: String) throws {
        let results = try decodeJSON([ProcessResult].self, json)
        try #require(results.count == 2)
        let (missing, shown) = (results[0], results[1])
        #expect(shown.input == "samples/xcode-extension/payloads/new-arrivals.json")
        #expect(shown.imageShown)
        #expect(shown.content?.attachments.first?.type == "public.png")
        #expect(shown.content?.attachments.first?.width == 600)
        #expect(shown.content?.threadIdentifier == "promotions")
        let line = try #require(shown.extensionActivity?.log.first)
        #expect(line.message == "Attached new-arrivals.png")
        #expect(line.source == "Logger" && line.subsystem == "com.example.shop.NotificationService")
        #expect(shown.extensionActivity?.requests.first?.url == "https://cdn.example.com/img/new-arrivals.png")

        #expect(missing.input == "samples/xcode-extension/payloads/missing-image.json")
        #expect(!missing.imageShown)
        #expect(missing.content?.title == "Back in stock")
        #expect(missing.extensionActivity?.log.first?.message.hasPrefix("No image:") == true)
        #expect(missing.extensionActivity?.requests.first?.status == 404)
        #expect(missing.outcome == .modifiedWithoutAttachment)
        #expect(missing.diagnostics.map(\.code).contains(.extensionNoAttachment), "a 404 the extension shrugs off still fails the push")
        // --media stood in for the CDN: the 404 names the local file nse looked for, as `nse process` does.
        #expect(missing.diagnostics.contains { $0.message.contains("nse looked for samples/media/img/no-such-image.png") }, "\(missing.diagnostics)")
        #expect(!shown.diagnostics.contains { $0.message.contains("nse looked for") })
    }

    @Test func sourcesWithoutAServiceClassAreAUsageError() async throws {
        let file = try ScratchFile("Helper.swift", "import Foundation\nenum Helper {}\n")
        let run = try await runNSE(["extension", file.folder.path, "--payload", file.path], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(run.status == 2)
        #expect(run.stderr.contains("No class inherits from UNNotificationServiceExtension"))
    }

    @Test func twoServiceClassesAskForOne() async throws {
        let source = """
            import UserNotifications
            class A: UNNotificationServiceExtension {}
            final class B: UNNotificationServiceExtension {}
            """
        let file = try ScratchFile("Services.swift", source)
        let run = try await runNSE(["extension", file.path, "--payload", file.path], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(run.status == 2)
        #expect(run.stderr.contains("Several classes inherit from UNNotificationServiceExtension (A, B)"))
    }

    @Test func aPayloadIsRequired() async throws {
        let run = try await runNSE(["extension", "samples/xcode-extension/NotificationService"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--payload"))
    }

    /// OneSignal's documented extension, compiled unchanged by `nse extension` against the OneSignalExtension
    /// stand-in (a module of the NSEHarness product), on OneSignal's payload and on Firebase's.
    @Test(.timeLimit(.minutes(20)))
    func anSDKsDocumentedExtensionBuildsAndNamesItsHelper() async throws {
        let run = try await runNSE([
            "extension", "samples/extension/sdks/onesignal/NotificationService.swift",
            "--payload", "samples/sdks/onesignal/os-data-buttons-badge.json", "samples/payloads/jpeg-ok.json",
            "--media", "samples/media", "--format", "json",
        ], environment: ["NSE_CACHE_DIR": Self.cache])
        let results = try decodeJSON([ProcessResult].self, run.stdout)
        try #require(results.count == 2, "\(run.stderr)")
        #expect(results[0].imageShown, "\(results[0].diagnostics)")
        #expect(results[0].content?.categoryIdentifier == "__onesignal__dynamic__0f3c6a7e-2b1d-4e5f-8a9b-c0d1e2f3a4b5")
        #expect(results[0].helper?.sdk == .onesignal)
        #expect(results[0].helper?.selection == .extension)
        #expect(results[0].extensionActivity?.requests.first?.api == "OneSignal data task")
        // Firebase's image key means nothing to OneSignal's helper: the image the sender asked for is lost.
        #expect(results[1].diagnostics.contains { $0.code == .sdkExtensionMismatch && $0.severity == .error })
        #expect(run.status == 1)
    }

    /// Files that import only CleverTapSDK or Mixpanel and use UIKit's names, as those frameworks' umbrella headers
    /// allow: `nse extension` builds them as the SDKs' test targets do (`CleverTapExtensionTests`,
    /// `MixpanelExtensionTests`), and they run.
    @Test(.timeLimit(.minutes(20)))
    func filesImportingOnlyCleverTapSDKOrMixpanelUseUIKit() async throws {
        let cleverTap = try await runNSE([
            "extension", "samples/extension/sdks/clevertap/MultiAccountService.swift", "samples/extension/sdks/clevertap/AttachedImage.swift",
            "--payload", "samples/sdks/clevertap/image-ok.json", "--media", "samples/media", "--format", "json",
        ], environment: ["NSE_CACHE_DIR": Self.cache])
        // One payload: one JSON object.
        let cleverTapResult = try decodeJSON(ProcessResult.self, cleverTap.stdout)
        #expect(cleverTapResult.imageShown, "\(cleverTapResult.diagnostics) \(cleverTap.stderr)")
        #expect(cleverTapResult.diagnostics.contains { $0.message.contains("\"Rich Push Rendered\" with 2 properties") })

        let mixpanel = try await runNSE([
            "extension", "samples/extension/sdks/mixpanel/ProfileNotificationService.swift",
            "--payload", "samples/sdks/mixpanel/image-and-buttons.json", "--media", "samples/media", "--format", "json",
        ], environment: ["NSE_CACHE_DIR": Self.cache])
        let mixpanelResult = try decodeJSON(ProcessResult.self, mixpanel.stdout)
        #expect(mixpanelResult.imageShown, "\(mixpanelResult.diagnostics) \(mixpanel.stderr)")
        #expect(mixpanelResult.diagnostics.contains { $0.message.contains("people update ($set last_push_image_width)") })
    }

    /// nse's modules are compiled once per nse checkout, in a build folder every extension package shares: a
    /// folder nse has never seen compiles only its own files.
    @Test(.timeLimit(.minutes(20)))
    func aNewExtensionFolderCompilesOnlyItsOwnFiles() async throws {
        // Another extension of this nse built (or already there): the shared part is up to date.
        let warm = try await runNSE(Self.documented + ["--format", "json"], environment: ["NSE_CACHE_DIR": Self.cache])
        #expect(warm.status == 1, "\(warm.stderr)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-new-extension-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: ProcessCommandTests.root.appendingPathComponent("samples/xcode-extension/NotificationService"), to: folder)
        let run = try await runNSE(
            ["extension", folder.path, "--payload", "samples/xcode-extension/payloads", "--media", "samples/media", "--format", "json", "--verbose"],
            environment: ["NSE_CACHE_DIR": Self.cache])
        try checkSampleResults(run.stdout)
        #expect(run.stderr.contains("nse's modules are built already"), "\(run.stderr)")
        let compiled = Set(run.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "] Compiling ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        })
        #expect(compiled == ["AppExtension"], "\(run.stderr.suffix(3000))")
    }
}
