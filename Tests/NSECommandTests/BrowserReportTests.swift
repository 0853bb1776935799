import Foundation
import NSEConcurrency
import Testing

/// The HTML report loaded in a real browser (Debian's `chromium`, headless): the page the browser builds has
/// a card per push with the right outcome, title and images, its filter script ran, and it draws.
///
/// `make test` installs chromium. On a developer's machine without it these tests are skipped with a message;
/// in CI (`CI` set) a missing browser fails them instead, so the check cannot silently stop running.
@Suite(.serialized, .enabled(if: Browser.available || Browser.required, "chromium is not installed: `apt-get install chromium` (or `make deps-browser`) to run the browser checks"))
struct BrowserReportTests {
    static let samples = ["jpeg-ok.json", "png-ok.json", "gif-animated-ok.json", "webp.json", "missing-mutable-content.json", "lint-errors.json"]
        .map { "samples/payloads/\($0)" }

    /// Writes the report for the samples and returns its folder.
    static func report() async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try await runNSE(["batch"] + samples + ["--media", "samples/media", "--html", folder.appendingPathComponent("report.html").path, "--quiet", "--app-name", "Shop"])
        #expect(run.status == 1, "\(run.stderr)")
        return folder
    }

    @Test(.timeLimit(.minutes(2)))
    func theBrowserBuildsACardPerPushWithItsTitleAndImages() async throws {
        let browser = try #require(Browser.path, "chromium is required in CI")
        let folder = try await Self.report()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await Browser.run(browser, ["--dump-dom", folder.appendingPathComponent("report.html").absoluteString], profile: folder)
        let dom = run.stdout
        let cards = dom.components(separatedBy: "<article class=\"card").dropFirst().map { $0.components(separatedBy: "</article>")[0] }
        try #require(cards.count == Self.samples.count, "the browser built \(cards.count) cards; stderr: \(run.stderr.suffix(500))")
        func attribute(_ name: String, _ card: String) -> String {
            card.range(of: "\(name)=\"").map { String(card[$0.upperBound...].prefix { $0 != "\"" }) } ?? ""
        }
        #expect(cards.map { attribute("data-push", $0) } == [Self.samples[3], Self.samples[4], Self.samples[5], Self.samples[0], Self.samples[1], Self.samples[2]])
        #expect(cards.map { attribute("data-outcome", $0) } == ["modified-without-attachment", "original", "rejected", "modified", "modified", "modified"])
        #expect(cards.map { $0.contains("<img class=\"thumb\"") && $0.contains("<img class=\"full\"") } == [false, false, false, true, true, true])
        #expect(cards[0].contains("<div class=\"title\">Garden days</div>"))
        #expect(cards[3].contains("<div class=\"title\">Spring Sale 🌸</div>"))
        #expect(cards[2].contains("Nothing reaches the phone."))
        #expect(cards.allSatisfy { $0.contains("<span class=\"name\">Shop</span>") || $0.contains("Nothing reaches the phone.") })
        // The filter script ran in the browser: it wrote the count of cards shown.
        #expect(dom.contains("<output id=\"f-count\">6 of 6 shown</output>"))
    }

    @Test(.timeLimit(.minutes(2)))
    func theBrowserDrawsTheReport() async throws {
        let browser = try #require(Browser.path, "chromium is required in CI")
        let folder = try await Self.report()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Kept in a known place (.build/ is not committed) to look at; `make report-screenshot` makes the README's.
        let screenshot = ProcessCommandTests.root.appendingPathComponent(".build/report-screenshot.png")
        try? FileManager.default.removeItem(at: screenshot)
        let run = try await Browser.run(browser, [
            "--screenshot=\(screenshot.path)", "--window-size=1280,1000", "--hide-scrollbars",
            folder.appendingPathComponent("report.html").absoluteString,
        ], profile: folder)
        let png = try #require(try? Data(contentsOf: screenshot), "no screenshot; stderr: \(run.stderr.suffix(500))")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // IHDR: width and height, big-endian, at bytes 16...23.
        let width = png.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let height = png.dropFirst(20).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect((width, height) == (1280, 1000))
        #expect(png.count > 50_000, "a blank page compresses to a few KB; the cards and images do not")
    }
}

/// Finds and runs Debian's chromium headless.
enum Browser {
    static let path: String? = ["chromium", "chromium-browser"].lazy.compactMap { name in
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }.first

    static var available: Bool { path != nil }

    /// In CI the browser must be there: the suite runs (and fails) rather than being skipped.
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// One headless chromium start, killed if it has not finished within a minute (a hang guard).
    static func run(_ browser: String, _ arguments: [String], profile: URL) async throws -> ProcessCommandTests.Run {
        let flags = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--user-data-dir=\(profile.appendingPathComponent("chromium-profile").path)",
        ]
        return try await runNSE(flags + arguments, executable: URL(fileURLWithPath: browser)) { process in
            BlockingExecutor.shared.schedule(at: .now + .seconds(60), "test.browser-guard") {
                if process.isRunning { process.terminate() }
            }
        }
    }
}
