import Foundation
import Testing

/// `nse extension --emit-package`: the test-target way (the README's first) builds the very files `nse extension`
/// builds. The Xcode-style sample has both kinds that a plain test target cannot compile on Linux: `import os.log`,
/// and a helper file that imports only Foundation and calls `URLSession.shared.download(from:)`.
struct EmitPackageCommandTests {
    /// Outside the repository, one per checkout, kept between runs so its build is incremental.
    static var folder: URL {
        ReadmeConsumerTests.folder.deletingLastPathComponent()
            .appendingPathComponent(ReadmeConsumerTests.folder.lastPathComponent.replacingOccurrences(of: "readme-consumer", with: "emitted-package"))
    }

    @Test(.timeLimit(.minutes(30)))
    func theEmittedPackageRunsTheSameFilesAsNseExtension() async throws {
        let swift = try #require(ReadmeConsumerTests.swift, "no swift on PATH")
        let emit = try await runNSE([
            "extension", "samples/xcode-extension/NotificationService", "--payload", "samples/xcode-extension/payloads",
            "--media", "samples/media", "--emit-package", Self.folder.path,
        ])
        #expect(emit.status == 0, "\(emit.stderr)")
        #expect(emit.stdout.contains("swift test --package-path \(Self.folder.path)"))
        let copied = try String(contentsOf: Self.folder.appendingPathComponent("Tests/NotificationServiceTests/Extension/0/NotificationService.swift"), encoding: .utf8)
        #expect(copied.contains("\nimport os\n") && !copied.contains("import os.log"))

        // A build folder of its own: SwiftPM reuses a build folder's plan for another package whose manifest it has
        // not seen change, so this package cannot share the README package's.
        ReadmeConsumerTests.forgetBuildPlan(of: Self.folder)
        let run = try await runNSE(["test", "--package-path", Self.folder.path], executable: swift)
        let output = run.stdout + run.stderr
        #expect(output.range(of: #"\.swift:\d+:\d+: error:"#, options: .regularExpression) == nil, "\(output.suffix(4000))")
        // The same verdicts as `nse extension` on these payloads: the image shows for one; the other's 404 fails it.
        #expect(output.contains("new-arrivals.json (apns)\n  OK: extension ran, image shown"), "\(output.suffix(4000))")
        #expect(output.contains("extension.no-attachment"))
        #expect(output.contains("Test run with 2 test cases") || output.contains("with 1 issue"), "\(output.suffix(2000))")
        #expect(run.status != 0, "missing-image.json fails, as `nse extension` exits 1 for it")
    }
}
