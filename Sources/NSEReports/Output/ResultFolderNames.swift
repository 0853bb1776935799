import Foundation

/// The folder each of `nse process`'s inputs gets under `--out`: its file name without the extension
/// (`promo.json` gives `promo`), unless two inputs would then share a folder. Those get as many of their parent
/// folders as tell them apart (`a/x.json` and `b/x.json` give `a/x` and `b/x`); a file named twice gets `-2`,
/// `-3`. No two inputs ever share a result folder, so no result is mixed with another's attachment.
public enum ResultFolderNames {
    public static func names(for files: [String]) -> [String] {
        let paths = files.map { file -> [String] in
            let url = URL(fileURLWithPath: file).standardizedFileURL.deletingPathExtension()
            return url.pathComponents.filter { $0 != "/" }
        }
        // Distinct paths get distinct names: lengthen the colliding ones until nothing collides (it ends, since
        // two distinct paths differ somewhere). The same path named twice is numbered below.
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
        var names = paths.map { suffixOfPath[$0] ?? "" }
        // The same file named more than once, or a name that would hold another's folder (`a` beside `a/x`):
        // numbered in argument order.
        var taken: [String] = []
        for index in names.indices {
            let base = names[index]
            let later = names[(index + 1)...].filter { $0 != base }
            var candidate = base
            var number = 1
            while taken.contains(where: { overlaps($0, candidate) }) || later.contains(where: { overlaps($0, candidate) }) {
                number += 1
                candidate = "\(base)-\(number)"
            }
            taken.append(candidate)
            names[index] = candidate
        }
        return names
    }

    /// Two result folders overlap when they are the same folder or one lies inside the other.
    private static func overlaps(_ one: String, _ other: String) -> Bool {
        one == other || one.hasPrefix(other + "/") || other.hasPrefix(one + "/")
    }
}
