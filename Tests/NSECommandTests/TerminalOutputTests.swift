import Foundation
import Testing

/// Text on a terminal: colour on verdicts and severities, long findings wrapped with their indent kept; NO_COLOR
/// and --color honoured; pipes get the text exactly as rendered.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux's script gives a pseudo-terminal"))
struct TerminalOutputTests {
    /// Runs `nse` on an 80-column pseudo-terminal (util-linux's `script`) and returns what it printed.
    private func onTerminal(_ arguments: [String], environment: String = "") async throws -> String {
        // `env -u NO_COLOR` first: the test runner's own environment may carry it.
        let command = "stty cols 80; env -u NO_COLOR \(environment) \(ProcessCommandTests.executable.path) \(arguments.joined(separator: " "))"
        let run = try await runNSE(["-qfec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        return run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    }

    private let lint = ["lint", "samples/payloads/lint-errors.json", "--format", "text"]

    @Test func findingsWrapUnderTheirMessageAndSeveritiesAreColoured() async throws {
        let text = try await onTerminal(lint)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.replacingOccurrences(of: "\u{1B}[", with: "").count <= 90 }, "\(text)")
        let badge = try #require(lines.firstIndex { $0.contains("lint.aps.badge-type") })
        #expect(lines[badge].hasPrefix("  \u{1B}[1;31merror\u{1B}[0m   lint.aps.badge-type:"))
        #expect(lines[badge + 1].hasPrefix("          ") && !lines[badge + 1].hasPrefix("           "), "continued under the code: \(lines[badge + 1])")
        #expect(text.contains("\u{1B}[1;31mREJECTED\u{1B}[0m"))
    }

    @Test func noColorTurnsColourOffButKeepsTheWrapping() async throws {
        let text = try await onTerminal(lint, environment: "NO_COLOR=1")
        #expect(!text.contains("\u{1B}["))
        #expect(text.contains("\n          "), "still wrapped: \(text)")
        let forced = try await onTerminal(lint + ["--color", "always"], environment: "NO_COLOR=1")
        #expect(forced.contains("\u{1B}[1;31merror"), "--color always wins over NO_COLOR")
    }

    @Test func aPipeGetsTheTextAsRenderedUnlessColourIsAskedFor() async throws {
        let piped = try await runNSE(lint)
        #expect(!piped.stdout.contains("\u{1B}["))
        #expect(piped.stdout.split(separator: "\n").contains { $0.count > 120 }, "one finding per line, unwrapped")
        let coloured = try await runNSE(lint + ["--color", "always"])
        #expect(coloured.stdout.contains("\u{1B}[33mwarning\u{1B}[0m lint.aps.alert-unknown-key"))
    }
}
