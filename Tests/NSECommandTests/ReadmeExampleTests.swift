import Foundation
import NSETestSupport
import Testing

/// Every example output in the README and docs/ marked `<!-- output of: nse ARGS -->` is what `nse ARGS` prints
/// today: the test runs each command and compares the whole text, with timings, rates and memory (which change from
/// run to run) set aside (`exampleMismatch`, shared with the snapshot check of the batch examples).
struct ReadmeExampleTests {
    struct Example: CustomTestStringConvertible {
        var file: String
        var arguments: [String]
        var lines: [String]
        var testDescription: String { "\(file): nse \(arguments.joined(separator: " "))" }
    }

    static func examples() throws -> [Example] {
        let root = ProcessCommandTests.root
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        var examples: [Example] = []
        for file in ["README.md"] + docs {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for part in text.components(separatedBy: "<!-- output of: nse ").dropFirst() {
                guard let end = part.range(of: " -->") else { continue }
                let block = part[end.upperBound...].components(separatedBy: "```").dropFirst().first ?? ""
                let lines = block.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast().map(String.init)
                examples.append(Example(file: file, arguments: shellWords(String(part[..<end.lowerBound])), lines: lines))
            }
        }
        return examples
    }

    /// Splits a command line as a shell would for these examples: spaces, and double quotes around a word.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == " ", !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    /// Sets aside what differs from run to run: milliseconds, the batch's time, rate and peak memory.
    static func normalize(_ line: String) -> String {
        var line = line.replacingOccurrences(of: #"\d+ ms\b"#, with: "N ms", options: .regularExpression)
        line = line.replacingOccurrences(of: #" in [\d.]+ s \(.*\)$"#, with: " in N s (...)", options: .regularExpression)
        return line.replacingOccurrences(of: #"process grew \d+ bytes"#, with: "process grew N bytes", options: .regularExpression)
    }

    @Test func theReadmeHasCheckedExamples() throws {
        #expect(try Self.examples().filter { $0.file == "README.md" }.count >= 5)
    }

    @Test(arguments: try examples())
    func exampleOutputIsWhatTheCommandPrints(_ example: Example) async throws {
        let run = try await runNSE(example.arguments)
        var printed = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if printed.last == "" { printed.removeLast() }
        if let mismatch = exampleMismatch(example.lines, against: printed, allowsMore: false, normalize: Self.normalize) {
            Issue.record("\(example.file): \(mismatch)")
        }
    }
}
