import Foundation
import Testing

/// `--html`, `--format json|github`, `--markdown-summary`, `--strict` and `batch --platform`, run as a user would.
struct ReportCommandTests {
    static let samples = ["jpeg-ok.json", "gif-animated-ok.json", "webp.json", "missing-mutable-content.json", "fcm-v1-notification-image.json"]
        .map { "samples/payloads/\($0)" }

    /// Each `<article class="card ...">` opening tag of a report, in page order.
    static func cards(_ html: String) -> [String] {
        html.components(separatedBy: "<article class=\"card").dropFirst().map { $0.components(separatedBy: "</article>")[0] }
    }

    static func attribute(_ name: String, in card: String) -> String? {
        guard let start = card.range(of: "\(name)=\"") else { return nil }
        return String(card[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test(.timeLimit(.minutes(1)))
    func batchHTMLWithoutOutHasACardPerPushFailuresFirstAndNothingToFetch() async throws {
        let folder = try ScratchFile("unused.txt", "")
        let html = folder.folder.appendingPathComponent("report.html")
        let run = try await runNSE(["batch"] + Self.samples + ["--media", "samples/media", "--html", html.path, "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("html: "))
        let page = try String(contentsOf: html, encoding: .utf8)
        let cards = Self.cards(page)
        #expect(cards.count == Self.samples.count)
        let pushes = cards.compactMap { Self.attribute("data-push", in: $0) }
        // The two failures come first, then the passes, each in input order.
        #expect(pushes == [Self.samples[2], Self.samples[3], Self.samples[0], Self.samples[1], Self.samples[4]])
        #expect(cards.compactMap { Self.attribute("data-outcome", in: $0) } == ["modified-without-attachment", "original", "modified", "modified", "modified"])
        // Images are inlined: the three that show have a thumbnail and a full image, the failures none.
        #expect(cards.map { $0.contains("<img class=\"full\"") } == [false, false, true, true, true])
        for card in cards {
            #expect(card.utf8.count < 60_000 + 4_000, "a card's images stay under 60 KB")
        }
        #expect(!page.contains("src=\"http") && !page.contains("<link") && !page.contains("url(http"))
    }

    @Test(.timeLimit(.minutes(1)))
    func processHTMLKeepsTheResultFreeOfTemporaryPaths() async throws {
        let folder = try ScratchFile("unused.txt", "")
        let html = folder.folder.appendingPathComponent("p.html")
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--html", html.path, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("\"file\""), "without --out the attachment is not kept, so no path is printed")
        let cards = Self.cards(try String(contentsOf: html, encoding: .utf8))
        #expect(cards.count == 1)
        #expect(cards.first?.contains("<img class=\"thumb\"") == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func jsonFormatPrintsOneResultPerLineAndTheSummaryOnStderr() async throws {
        let run = try await runNSE(["batch"] + Self.samples + ["--media", "samples/media", "--format", "json"])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == Self.samples.count)
        let inputs = try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["input"] as? String)
        }
        #expect(Set(inputs) == Set(Self.samples))
        #expect(run.stderr.contains("5 payloads in"))
    }

    @Test(.timeLimit(.minutes(1)))
    func githubFormatAnnotatesThePushFilesAndAppendsTheStepSummary() async throws {
        let folder = try ScratchFile("unused.txt", "")
        let summary = folder.folder.appendingPathComponent("step-summary.md")
        try Data("# earlier step\n".utf8).write(to: summary)
        // As on a GitHub runner: the summary file is named by the environment.
        let run = try await runNSE(
            ["GITHUB_STEP_SUMMARY=\(summary.path)", ProcessCommandTests.executable.path, "batch"] + Self.samples
                + ["--media", "samples/media", "--format", "github", "--quiet"],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(run.status == 1)
        #expect(run.stdout.contains("::error file=samples/payloads/webp.json,title=media.unsupported-format::The file is saved as .webp"))
        #expect(run.stdout.contains("::warning file=samples/payloads/fcm-v1-notification-image.json,title=fcm.inferred-image::"))
        #expect(!run.stdout.contains("PASS "), "--quiet leaves only the annotations and the summary")
        let markdown = try String(contentsOf: summary, encoding: .utf8)
        #expect(markdown.hasPrefix("# earlier step\n### nse batch: failed\n"))
        #expect(markdown.contains("| `media.unsupported-format` | 1 | `samples/payloads/webp.json` |"))
    }

    @Test(.timeLimit(.minutes(1)))
    func strictFailsOnWarningsAlone() async throws {
        let push = "samples/payloads/fcm-v1-notification-image.json"
        let folder = try ScratchFile("unused.txt", "")
        let markdown = folder.folder.appendingPathComponent("summary.md")
        let lenient = try await runNSE(["batch", push, "--media", "samples/media"])
        let strict = try await runNSE(["batch", push, "--media", "samples/media", "--strict", "--markdown-summary", markdown.path])
        let process = try await runNSE(["process", push, "--media", "samples/media", "--strict"])
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("warnings 1"))
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("FAIL  \(push)"))
        let summary = try String(contentsOf: markdown, encoding: .utf8)
        #expect(summary.hasPrefix("### nse batch: failed\n") && summary.contains("`--strict`: pushes with warnings fail."))
        #expect(process.status == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func batchChecksAndroidWithPlatform() async throws {
        let folder = try ScratchFile("unused.txt", "")
        let html = folder.folder.appendingPathComponent("android.html")
        let run = try await runNSE(["batch", "samples/payloads/fcm-v1-android-image.json", "--media", "samples/media", "--platform", "both", "--format", "json", "--html", html.path])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let android = try #require(object["android"] as? [String: Any])
        #expect(android["imageShown"] as? Bool == true)
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<p class=\"android\">Android: the notification &quot;Spring collection&quot; shows its image.</p>"))
        // The Android notification is drawn; its WebP image is named, not drawn (the report decodes JPEG, PNG, GIF).
        #expect(page.contains("<h2>Android, collapsed</h2>"))
        #expect(page.contains("no preview: a WEBP file is not an image the report can draw"))
        #expect(!page.contains("class=\"large-icon\""))
        let ios = try await runNSE(["batch", "samples/payloads/fcm-v1-android-image.json", "--media", "samples/media", "--format", "json"])
        #expect(!ios.stdout.contains("\"android\""), "without --platform only iOS is checked")
    }

    /// `--platform android` with `--out` and `--html`: the image the Android notification shows is kept beside the
    /// result (`android.image.file`) and drawn as the shade draws it: the large icon, then the big picture.
    @Test(.timeLimit(.minutes(1)))
    func batchDrawsAndKeepsTheAndroidImage() async throws {
        let folder = try ScratchFile("unused.txt", "")
        let out = folder.folder.appendingPathComponent("out")
        let html = folder.folder.appendingPathComponent("android.html")
        let run = try await runNSE([
            "batch", "samples/payloads/fcm-v1-notification-image.json", "--media", "samples/media", "--platform", "android",
            "--out", out.path, "--html", html.path, "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let image = try #require((object["android"] as? [String: Any])?["image"] as? [String: Any])
        let file = try #require(image["file"] as? String)
        #expect(file.hasSuffix("/android-image.jpg"), "\(file)")
        let kept = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        #expect(FileManager.default.fileExists(atPath: kept), "the Android image is kept beside content.json: \(kept)")
        let cards = Self.cards(try String(contentsOf: html, encoding: .utf8))
        #expect(cards.count == 1)
        let card = try #require(cards.first)
        #expect(card.contains("<img class=\"large-icon\""))
        #expect(card.contains("<img class=\"picture\""))
        #expect(!card.contains("The iOS side was not emulated."))
    }
}
