import Foundation

/// The README's first way (a SwiftPM test target) made from an extension folder, as `nse extension --emit-package
/// OUT` writes it: the same files `nse extension` compiles, with the same two adjustments, so both ways build the
/// same code. `import os.log` becomes `import os` in the copies (Apple's `os` is a C module with submodules, which a
/// Swift stand-in cannot have), and the target imports UserNotifications into every file, so a helper file that
/// imports only Foundation finds `URLSession.shared` as it does on a device (on Linux Foundation has none).
public struct ExtensionTestPackage: Sendable {
    /// The test target's name and folder (`Tests/NotificationServiceTests`), as in the README.
    public static let targetName = "NotificationServiceTests"

    public var sources: ExtensionSources
    public var nseRoot: URL
    /// The pushes the generated test runs the extension on, one test case each.
    public var payloads: [URL]
    /// Served as `ExtensionHarness(media:)` serves a folder, when given.
    public var media: URL?
    /// Copied into the app-group container before each run, when given.
    public var containerSeed: URL?
    /// The folder standing for the app's bundle (`UIImage(named:)`).
    public var bundleDirectory: URL?

    public init(sources: ExtensionSources, nseRoot: URL, payloads: [URL]) {
        self.sources = sources
        self.nseRoot = nseRoot.standardizedFileURL
        self.payloads = payloads
    }

    /// Writes the package into `folder` (created if needed; the test target's folder is replaced).
    public func write(to folder: URL) throws {
        let manager = FileManager.default
        let target = folder.appendingPathComponent("Tests/\(Self.targetName)")
        try? manager.removeItem(at: target)
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        for (source, relative) in sources.files {
            // `0/NotificationService.swift`: the index keeps files of several given paths apart, as in `nse extension`.
            let copy = target.appendingPathComponent("Extension/" + relative)
            try manager.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            let text = try String(contentsOf: source, encoding: .utf8)
            try Data(ExtensionPackage.portImports(text).utf8).write(to: copy, options: .atomic)
        }
        try Data(testFile().utf8).write(to: target.appendingPathComponent("NSEPayloadTests.swift"), options: .atomic)
        try Data(manifest().utf8).write(to: folder.appendingPathComponent("Package.swift"), options: .atomic)
    }

    private static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func optionalURL(_ url: URL?) -> String {
        url.map { "URL(fileURLWithPath: \(literal($0.standardizedFileURL.path)))" } ?? "nil"
    }

    func manifest() -> String {
        // The dependency's identity is its folder's name, lowercased, as SwiftPM derives it for path packages.
        let identity = nseRoot.lastPathComponent.lowercased()
        return """
            // swift-tools-version: 6.0
            // Written by `nse extension --emit-package`: the extension's files as the README's test target
            // (docs/extensions.md). `swift test` runs the extension on each payload, as `nse extension` does.
            import PackageDescription

            let package = Package(
                name: "\(Self.targetName)",
                dependencies: [
                    .package(path: \(Self.literal(nseRoot.path))),
                ],
                targets: [
                    .testTarget(
                        name: "\(Self.targetName)",
                        dependencies: [.product(name: "NSEHarness", package: \(Self.literal(identity)))],
                        path: "Tests/\(Self.targetName)",
                        swiftSettings: [
                            .swiftLanguageMode(.v5),   // as Xcode compiles app code
                            // Every file sees UserNotifications' URLSession, as files see Apple's on a device.
                            .unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "UserNotifications"]),
                        ]
                    ),
                ]
            )

            """
    }

    func testFile() -> String {
        let list = payloads.map { "    " + Self.literal($0.standardizedFileURL.path) + "," }.joined(separator: "\n")
        let plist = sources.infoPlist.map { "    try harness.loadInfoPlist(URL(fileURLWithPath: \(Self.literal($0.path))))\n" } ?? ""
        return """
            // Written by `nse extension --emit-package`: each payload through the extension, as `nse extension` runs it.
            import Foundation
            import NSEHarness
            import Testing

            let payloads: [String] = [
            \(list)
            ]

            @Test(arguments: payloads)
            func theExtensionPassesOn(_ payload: String) async throws {
                var harness = ExtensionHarness()
                harness.mediaFolder = \(Self.optionalURL(media))
                harness.containerSeed = \(Self.optionalURL(containerSeed))
                harness.bundleDirectory = \(Self.optionalURL(bundleDirectory))
            \(plist)    let delivered = try await harness.run(\(sources.principalClass).self, payloadFile: URL(fileURLWithPath: payload))
                print(delivered)
                // `nse extension` exits 1 for the same finding.
                #expect(delivered.result.verdict != .fail, "\\(delivered)")
            }

            """
    }
}
