import ArgumentParser

/// A mistyped subcommand (`nse proces x.json`) gets "did you mean", as a mistyped option does: swift-argument-
/// parser suggests options but takes an unknown first word for an unexpected argument and names no command.
enum SubcommandSuggestion {
    /// The usage error for `arguments` when its first word is neither an option nor a command; nil otherwise.
    static func error(for arguments: [String], commands: [any ParsableCommand.Type]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let names = commands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        let known = names.filter { $0 != "help" }.joined(separator: ", ")
        guard let closest = names.map({ ($0, distance(word.lowercased(), $0)) }).min(by: { $0.1 < $1.1 }),
              closest.1 <= max(1, min(3, closest.0.count / 3)) || closest.0.hasPrefix(word.lowercased()) else {
            return "Unknown command '\(word)'. The commands are: \(known).\n  See 'nse --help' for more information."
        }
        return "Unknown command '\(word)'. Did you mean '\(closest.0)'?\n  See 'nse --help' for more information."
    }

    /// Edits (insert, delete, substitute, swap two neighbours) that turn `one` into `other`.
    static func distance(_ one: String, _ other: String) -> Int {
        let a = Array(one), b = Array(other)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
