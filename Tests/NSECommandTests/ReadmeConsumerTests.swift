import Foundation
import NSEConcurrency
import NSEHarness
import NSETestSupport
import Testing

/// The README's first way to test an extension, as a new user meets it: its `Package.swift` and test file, word for
/// word, in a package outside this repository beside a link named `nse` to this checkout (the README's
/// `.package(path: "../nse")`), with Firebase's documented extension file and an image in `Tests/media`. `swift
/// test` there must pass and print what the README shows, so the README cannot drift from what works.
///
/// It builds nse's harness modules in a package of their own (minutes the first time on two cores); the package and
/// its build folder are kept, one per checkout, so a later run rebuilds only what changed.
struct ReadmeConsumerTests {
    static let root = ProcessCommandTests.root

    /// The fenced blocks of the README's "Testing your own extension" section, in order, with their info strings.
    static func sectionBlocks() throws -> [(info: String, lines: [String], marker: String?)] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Testing your own extension\n") else { return [] }
        let section = text[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var blocks: [(String, [String], String?)] = []
        var current: (info: String, lines: [String], marker: String?)?
        var lastMarker: String?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = current {
                    blocks.append((block.info, block.lines, block.marker))
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)), [], lastMarker)
                }
                lastMarker = nil
            } else if current != nil {
                current?.lines.append(line)
            } else if line.hasPrefix("<!-- output of:") {
                lastMarker = line
            } else if !line.isEmpty {
                lastMarker = nil
            }
        }
        return blocks
    }

    /// The README's own package and test, the one push it names, its expected output.
    struct Consumer {
        var manifest: String
        var test: String
        var output: [String]
    }

    static func consumer() throws -> Consumer {
        let blocks = try sectionBlocks()
        let manifest = try #require(blocks.first { $0.info == "swift" && $0.lines.first?.hasPrefix("// swift-tools-version") == true })
        let test = try #require(blocks.first { $0.info == "swift" && $0.lines.contains("import NSEHarness") })
        let output = try #require(blocks.first { $0.marker?.contains("ReadmeConsumerTests") == true })
        return Consumer(
            manifest: manifest.lines.joined(separator: "\n") + "\n", test: test.lines.joined(separator: "\n") + "\n", output: output.lines)
    }

    /// Where the consumer package lives: outside the repository, one folder per checkout, kept between runs.
    static var folder: URL {
        let name = root.standardizedFileURL.path.unicodeScalars.reduce(UInt64(14_695_981_039_346_656_037)) { hash, scalar in
            (hash ^ UInt64(scalar.value)) &* 1_099_511_628_211
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("nse-readme-consumer-\(String(name, radix: 16))")
    }

    /// The README's `../nse` beside the package: a link named nse to this checkout, whatever its folder is called.
    static func nseLink() throws -> URL {
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent("nse")
        if (try? manager.destinationOfSymbolicLink(atPath: link.path)) != root.path {
            try? manager.removeItem(at: link)
            try manager.createSymbolicLink(atPath: link.path, withDestinationPath: root.path)
        }
        return link
    }

    /// Makes the next `swift build` plan anew: SwiftPM keeps a build folder's plan while the root manifest reads the
    /// same, so a file added to or removed from nse's sources would otherwise stop the kept build ("missing inputs").
    /// Its build is also removed when nse's sources are another version than the build's (a stamp file records it):
    /// an incremental build of nse's modules after a change could link code compiled against a type's old shape.
    static func forgetBuildPlan(of package: URL) {
        let build = package.appendingPathComponent(".build")
        let stamp = package.appendingPathComponent(".nse-sources")
        let version = ExtensionPackage.sourcesFingerprint(nseRoot: root)
        if (try? String(contentsOf: stamp, encoding: .utf8)) != version {
            try? FileManager.default.removeItem(at: build)
            try? FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try? Data(version.utf8).write(to: stamp)
        }
        for triple in (try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? [] {
            try? FileManager.default.removeItem(at: build.appendingPathComponent("\(triple)/debug/description.json"))
        }
    }

    /// `swift` from PATH, as a user runs it.
    static var swift: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func theSectionHasThePackageTheTestAndTheOutput() throws {
        let consumer = try Self.consumer()
        #expect(consumer.manifest.contains(".package(path: \"../nse\")"))
        #expect(consumer.test.contains("ExtensionHarness(media:"))
        #expect(!consumer.output.isEmpty)
    }

    @Test(.timeLimit(.minutes(30)))
    func theReadmePackagePassesOutsideTheRepository() async throws {
        let consumer = try Self.consumer()
        let swift = try #require(Self.swift, "no swift on PATH")
        let manager = FileManager.default
        let base = Self.folder
        let app = base.appendingPathComponent("MyApp")
        let tests = app.appendingPathComponent("Tests/NotificationServiceTests")
        let media = app.appendingPathComponent("Tests/media")
        try manager.createDirectory(at: tests, withIntermediateDirectories: true)
        try manager.createDirectory(at: media, withIntermediateDirectories: true)
        _ = try Self.nseLink()
        try Self.writeIfChanged(consumer.manifest, to: app.appendingPathComponent("Package.swift"))
        try Self.writeIfChanged(consumer.test, to: tests.appendingPathComponent("SaleTests.swift"))
        let extensionFile = try String(contentsOf: Self.root.appendingPathComponent("samples/extension/NotificationService.swift"), encoding: .utf8)
        try Self.writeIfChanged(extensionFile, to: tests.appendingPathComponent("NotificationService.swift"))
        try Self.writeIfChanged(Self.namesTest, to: tests.appendingPathComponent("NamesTests.swift"))
        let image = try Data(contentsOf: Self.root.appendingPathComponent("samples/media/img/sale.jpg"))
        if manager.contents(atPath: media.appendingPathComponent("sale.jpg").path) != image {
            try image.write(to: media.appendingPathComponent("sale.jpg"))
        }

        Self.forgetBuildPlan(of: app)
        let run = try await runNSE(["test", "--package-path", app.path], executable: swift)
        #expect(run.status == 0, "swift test in \(app.path) failed:\n\(run.stdout.suffix(4000))\n\(run.stderr.suffix(4000))")
        // swift test indents what a test prints under its own lines.
        let printed = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.drop { $0 == " " }) }
        let expected = consumer.output.map { String($0.drop { $0 == " " }) }
        let first = Self.normalize(expected.first ?? "")
        let start = printed.firstIndex { Self.normalize($0) == first } ?? printed.endIndex
        if let mismatch = exampleMismatch(expected, against: Array(printed[start...]), allowsMore: true, normalize: Self.normalize) {
            Issue.record("README.md, the output of the consumer package: \(mismatch)\n\(run.stdout.suffix(3000))")
        }
    }

    /// Beside the README's test: the types a test of an extension names, with `import NSEHarness` alone.
    static let namesTest = """
        import Foundation
        import NSEHarness
        import Testing

        @Test func aTestNamesTheHarnessTypesWithOneImport() throws {
            var profile = DeviceProfile()
            profile.timeBudget = .seconds(30)
            let mapping = MediaHostMapping(origin: try #require(URL(string: "http://127.0.0.1:8080")))
            var harness = ExtensionHarness(profile: profile, hostMapping: mapping)
            harness.memoryMeasurement = MemoryMeasurement.off
            let outcome: Outcome = .modified
            let verdict: Verdict = .pass
            let finding: Diagnostic = .warning(DiagnosticCode.mediaHTTPStatus, "HTTP 404")
            let result: ProcessResult? = nil
            #expect(outcome.rawValue == "modified" && verdict.rawValue == "pass" && finding.severity == .warning && result == nil)
        }

        """

    /// What changes from run to run: timings and memory (as for every README example), and the attachment's
    /// temporary folder.
    static func normalize(_ line: String) -> String {
        // The README shows /tmp; the run uses the machine's temporary folder (TMPDIR), wherever that is.
        ReadmeExampleTests.normalize(line).replacingOccurrences(of: #"/\S*nse-harness-[0-9A-Fa-f-]+/"#, with: "<tmp>/nse-harness-N/", options: .regularExpression)
    }

    /// Leaves a file's modification time alone when its text is the same, so the kept build is not redone.
    static func writeIfChanged(_ text: String, to file: URL) throws {
        guard FileManager.default.contents(atPath: file.path) != Data(text.utf8) else { return }
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
