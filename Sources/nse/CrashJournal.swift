import Foundation
import NSEReports

/// What a batch worker was doing, written as it happens so that it survives the worker's crash: a line
/// `S <index> <path>` when a push starts and `D <index>` when its result is saved (indexes into the worker's
/// discovered inputs; the path as results show it, with `\` and line breaks escaped). The supervisor learns the
/// suspects' names from it, so it never has to discover the inputs itself.
///
/// Each line is one write(2) to a file opened with O_APPEND: the kernel has it as soon as the call returns, so a
/// trap or a SIGKILL the next instant loses nothing already written.
final class CrashJournal: Sendable {
    /// Its file's name is `<prefix><supervisor's pid>-<UUID>`, hidden (inside `--out`, a later batch skips it);
    /// the second prefix is the name earlier versions left in TMPDIR, cleaned up all the same.
    static let prefixes = [".nse-journal-", "nse-journal-"]

    private let descriptor: Int32

    init(file: URL) throws {
        descriptor = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutputFolderError(folder: file.deletingLastPathComponent()) }
    }

    deinit {
        close(descriptor)
    }

    func started(_ index: Int, path: String) {
        var escaped = String.UnicodeScalarView()
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        append("S \(index) \(String(escaped))\n")
    }

    func finished(_ index: Int) {
        append("D \(index)\n")
    }

    private func append(_ line: String) {
        var bytes = Array(line.utf8)
        // A lost line only widens the set of suspects the supervisor re-runs; there is nothing better to do.
        _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// A push that started and never finished: a suspect of a crash.
    struct Suspect {
        var index: Int
        var path: String
    }

    /// The pushes that started and never finished, in the order they started.
    static func unfinished(in file: URL) -> [Suspect] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        var order: [Suspect] = []
        var open = Set<Int>()
        for line in text.unicodeScalars.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, let index = Int(String(fields[1])) else { continue }
            let kind = String(fields[0])
            if kind == "S", fields.count == 3, open.insert(index).inserted {
                order.append(Suspect(index: index, path: unescape(fields[2])))
            } else if kind == "D" {
                open.remove(index)
            }
        }
        return order.filter { open.contains($0.index) }
    }

    private static func unescape(_ text: Substring.UnicodeScalarView) -> String {
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in text {
            if escaping {
                result.append(scalar == "n" ? "\n" : scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
