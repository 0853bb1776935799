import ArgumentParser
import Foundation

/// `--color`, shared by every command that prints text.
struct TerminalOptions: ParsableArguments {
    enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "Colour verdicts and severities: auto (on a terminal, unless NO_COLOR is set), always or never.")
    var color: ColorChoice = .auto

    /// How text for standard output looks under these options.
    var style: TerminalText {
        let terminal = isatty(STDOUT_FILENO) != 0
        let colors = switch color {
        case .always: true
        case .never: false
        // https://no-color.org: any value of NO_COLOR, even empty, turns colour off.
        case .auto: terminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        }
        return TerminalText(colors: colors, width: terminal ? Self.terminalWidth() : nil)
    }

    private static func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 else { return nil }
        return Int(size.ws_col)
    }
}

/// What text output looks like on a terminal: long lines wrapped at its width with their indent kept (a finding's
/// continuation lines under its message), and colour on verdicts and severities. Off a terminal (a pipe, a CI log)
/// the text stays exactly as rendered, one finding per line, so it can be searched and compared.
struct TerminalText {
    var colors: Bool
    /// Wrap lines longer than this; nil: never wrap.
    var width: Int?

    static let plain = TerminalText(colors: false, width: nil)

    func apply(_ text: String) -> String {
        guard colors || width != nil else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            wrapped(String(line)).map(colored)
        }.joined(separator: "\n")
    }

    /// The words that open a line and what they mean, matched after the line's indent.
    private static let marks: [(prefix: String, color: String)] = [
        ("error ", "\u{1B}[1;31m"), ("warning ", "\u{1B}[33m"), ("info ", "\u{1B}[36m"),
        ("OK:", "\u{1B}[1;32m"), ("PASS ", "\u{1B}[1;32m"),
        ("FAIL", "\u{1B}[1;31m"), ("ERROR ", "\u{1B}[1;31m"), ("REJECTED", "\u{1B}[1;31m"),
    ]

    private func colored(_ line: String) -> String {
        guard colors else { return line }
        let body = line.drop { $0 == " " }
        guard let mark = Self.marks.first(where: { body.hasPrefix($0.prefix) }) else { return line }
        let word = mark.prefix.trimmingCharacters(in: .whitespaces)
        let indent = line.prefix(line.count - body.count)
        return indent + mark.color + word + "\u{1B}[0m" + body.dropFirst(word.count)
    }

    /// Breaks a line at spaces to fit `width`. Continuation lines start under the text after a leading
    /// severity word (`  error   code: message` continues under `code`), else two spaces deeper than the line.
    private func wrapped(_ line: String) -> [String] {
        guard let width, line.count > width else { return [line] }
        let indent = line.prefix { $0 == " " }.count
        let body = line.dropFirst(indent)
        var hanging = indent + 2
        if let severity = ["error ", "warning ", "info "].first(where: { body.hasPrefix($0) }) {
            hanging = indent + severity.count + body.dropFirst(severity.count).prefix { $0 == " " }.count
        }
        guard hanging < width - 20 else { return [line] }
        var lines: [String] = []
        var current = String(line.prefix(indent))
        var currentIsEmpty = true
        for word in body.split(separator: " ", omittingEmptySubsequences: false) {
            let needed = current.count + (currentIsEmpty ? 0 : 1) + word.count
            if !currentIsEmpty, needed > width {
                lines.append(current)
                current = String(repeating: " ", count: hanging) + word
            } else {
                current += (currentIsEmpty ? "" : " ") + word
            }
            currentIsEmpty = false
        }
        lines.append(current)
        return lines
    }
}
