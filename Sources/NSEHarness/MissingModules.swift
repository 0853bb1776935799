import Foundation

/// Modules an extension imports that nse has no stand-in for (third-party pods such as SDWebImage), read from the
/// compiler's "no such module" errors: each named, with the change that lets the file build here and in Xcode alike.
enum MissingModules {
    /// What the pods extensions commonly import do, for the message.
    private static let known: [String: String] = [
        "SDWebImage": "an image downloading and caching library",
        "SDWebImageWebPCoder": "SDWebImage's WebP decoder",
        "Kingfisher": "an image downloading and caching library",
        "KeychainAccess": "a Keychain wrapper",
    ]

    /// The module names of every "no such module 'X'" line in `output`, each once, in order.
    static func names(in output: String) -> [String] {
        var names: [String] = []
        for line in output.split(separator: "\n") {
            guard let marker = line.range(of: "no such module '") else { continue }
            let name = String(line[marker.upperBound...].prefix { $0 != "'" })
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// A paragraph per missing module, or "" when the output names none.
    static func advice(for output: String) -> String {
        names(in: output).map { name in
            let what = known[name].map { " (\($0))" } ?? ""
            return "\n`import \(name)`: \(name)\(what) is a module nse has no stand-in for: nse compiles the extension's own files against Apple's frameworks and the push SDKs' helpers only. The change: put `#if canImport(\(name))` before `import \(name)` and `#endif` after it, and the same around the code that uses it (with what the extension does without it in `#else`). Xcode still builds the pod's path; nse runs the other."
        }.joined()
    }
}
