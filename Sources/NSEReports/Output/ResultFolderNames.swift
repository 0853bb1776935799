import Foundation

/// The folder each input's result gets under `--out`, for `process`, `extension` and `batch` alike: one rule,
/// so no command can give two inputs the same folder.
///
/// A file's folder is its name, extension kept (`promo.json` gives `promo.json/`, so `promo.json` and
/// `promo.apns` never meet); a batch's walked files keep their path under their folder. Files named on their own
/// that share a name get as many of their parent folders as tell them apart (`a/x.json` and `b/x.json` give
/// `a/x.json/` and `b/x.json/`). What still collides (the same file named twice, a name that would hold
/// another's folder) is numbered in argument order before the extension (`x-2.json`). No two inputs ever share
/// a result folder, so no result replaces or mixes with another's.
package enum ResultFolderNames {
    /// The folders of files named on their own (`nse process a/x.json b/x.json a/x.apns`).
    package static func names(for files: [String]) -> [String] {
        unique(distinctSuffixes(of: files))
    }

    /// The shortest path suffixes (extension kept) that tell the files apart; the same path twice stays the same.
    package static func distinctSuffixes(of files: [String]) -> [String] {
        let paths = files.map { file -> [String] in
            URL(fileURLWithPath: file).standardizedFileURL.pathComponents.filter { $0 != "/" }
        }
        // Distinct paths get distinct names: lengthen the colliding ones until nothing collides (it ends, since
        // two distinct paths differ somewhere).
        let distinct = Array(Set(paths))
        var depth = [Int](repeating: 1, count: distinct.count)
        var suffixes = [String](repeating: "", count: distinct.count)
        while true {
            for index in distinct.indices {
                suffixes[index] = distinct[index].suffix(depth[index]).joined(separator: "/")
            }
            var grew = false
            for members in Dictionary(grouping: distinct.indices, by: { suffixes[$0] }).values where members.count > 1 {
                for index in members where depth[index] < distinct[index].count {
                    depth[index] += 1
                    grew = true
                }
            }
            if !grew { break }
        }
        let suffixOfPath = Dictionary(uniqueKeysWithValues: zip(distinct, suffixes))
        return paths.map { suffixOfPath[$0] ?? "" }
    }

    /// `names` made unique: each keeps its own unless an earlier one took it or it would hold (or lie inside)
    /// another's folder; those get `-2`, `-3` before the extension. In time linear in the names (times their
    /// depth), so a batch of thousands pays nothing for it.
    package static func unique(_ names: [String]) -> [String] {
        var taken = Set<String>()
        // Every folder that holds a taken name: a name equal to one of them would hold that result.
        var holders = Set<String>()
        func isFree(_ name: String) -> Bool {
            !taken.contains(name) && !holders.contains(name) && !ancestors(of: name).contains(where: taken.contains)
        }
        func take(_ name: String) {
            taken.insert(name)
            holders.formUnion(ancestors(of: name))
        }
        var result = [String?](repeating: nil, count: names.count)
        // First every name that is free keeps it, so a later input's own name is not given to an earlier duplicate.
        for (index, name) in names.enumerated() where isFree(name) {
            take(name)
            result[index] = name
        }
        for (index, name) in names.enumerated() where result[index] == nil {
            // Under a folder that is another's result (`x.json/y.json` beside `x.json`), the folder is numbered.
            let at = ancestors(of: name).first(where: taken.contains) ?? name
            func candidate(_ number: Int) -> String { numbered(at, number) + name.dropFirst(at.count) }
            var number = 2
            while !isFree(candidate(number)) { number += 1 }
            take(candidate(number))
            result[index] = candidate(number)
        }
        return result.map { $0 ?? "" }
    }

    /// `a/x.json` numbered 2 is `a/x-2.json`; a name without an extension gets the number at its end.
    static func numbered(_ name: String, _ number: Int) -> String {
        let lastSlash = name.lastIndex(of: "/")
        let lastComponentStart = lastSlash.map { name.index(after: $0) } ?? name.startIndex
        guard let dot = name[lastComponentStart...].lastIndex(of: "."), dot != lastComponentStart else { return "\(name)-\(number)" }
        return "\(name[..<dot])-\(number)\(name[dot...])"
    }

    /// `a/b/c` has the ancestors `a` and `a/b`.
    private static func ancestors(of name: String) -> [String] {
        var result: [String] = []
        var index = name.startIndex
        while let slash = name[index...].firstIndex(of: "/") {
            result.append(String(name[..<slash]))
            index = name.index(after: slash)
        }
        return result
    }
}
