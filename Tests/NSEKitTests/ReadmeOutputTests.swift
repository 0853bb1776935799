import Foundation
import NSETestSupport
import Testing

/// The README's example outputs of `nse batch` come from real runs; each one marked
/// `<!-- checked against Tests/Snapshots/NAME -->` must agree with the snapshot the renderers are tested against,
/// line for line ("..." skips lines), once the figures that change between runs (times, rates, memory) are set aside.
struct ReadmeOutputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Example: CustomTestStringConvertible {
        var snapshot: String
        var lines: [String]
        var testDescription: String { snapshot }
    }

    static func examples() throws -> [Example] {
        // The README and the reference in docs/ alike.
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        let readme = try (["README.md"] + docs).map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let marker = "<!-- checked against Tests/Snapshots/"
        return readme.components(separatedBy: marker).dropFirst().map { part in
            let name = String(part.prefix { $0 != " " })
            let block = part.components(separatedBy: "```").dropFirst().first ?? ""
            // The fence's first line is its language tag, if any.
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast().map(String.init)
            return Example(snapshot: name, lines: lines)
        }
    }

    /// Sets aside what differs from run to run: milliseconds, the run's time, rate, jobs and memory.
    static func normalize(_ line: String) -> String {
        var line = line.replacingOccurrences(of: #"\d+ ms\b"#, with: "N ms", options: .regularExpression)
        line = line.replacingOccurrences(of: #" in [\d.]+ s \(.*\)$"#, with: " in N s (...)", options: .regularExpression)
        line = line.replacingOccurrences(of: #"time="[\d.]+""#, with: #"time="N""#, options: .regularExpression)
        return line.replacingOccurrences(of: #"^ +N ms"#, with: "N ms", options: .regularExpression)
    }

    @Test func theReadmeShowsBatchOutputs() throws {
        #expect(try Self.examples().map(\.snapshot).sorted() == ["batch-github.txt", "batch-summary.md", "batch.txt"])
    }

    @Test(arguments: try examples())
    func readmeExampleAgreesWithItsSnapshot(_ example: Example) throws {
        let snapshot = try String(contentsOf: Self.root.appendingPathComponent("Tests/Snapshots/\(example.snapshot)"), encoding: .utf8)
        #expect(!example.lines.isEmpty)
        let lines = snapshot.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let mismatch = exampleMismatch(example.lines, against: lines, allowsMore: true, normalize: Self.normalize) {
            Issue.record("README or docs vs \(example.snapshot): \(mismatch)")
        }
    }
}
