import Foundation

/// One push file a batch processes, or a folder it could not list.
public struct BatchInput: Sendable, Hashable {
    /// The file, as a path relative to the working directory when the root was given that way.
    public var file: URL
    /// Where its result goes under the output folder: the file's path relative to its root, extension kept
    /// (`campaign/fr/promo.json`), so `promo.json` and `promo.apns`, or `promo.json` and a folder `promo/`,
    /// never share a result folder.
    public var outputPath: String
    /// Why the folder at `file` could not be listed; nil for a push file.
    public var listingError: String?

    public init(file: URL, outputPath: String, listingError: String? = nil) {
        self.file = file
        self.outputPath = outputPath
        self.listingError = listingError
    }

    /// The path shown in results and reports.
    public var displayPath: String { file.relativePath }
}

/// Why a batch cannot start: a usage error (exit status 2).
public struct BatchInputError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Finds the push files under the folders (and files) a user names, in a deterministic order.
///
/// Folders are walked recursively for `.json` and `.apns` files (any case). Hidden files and folders (a leading
/// dot), the output folder, symbolic links to folders (which could loop) and anything that is not a regular
/// file (a FIFO would block the reader) are skipped. Within a root, files come in the byte order of their
/// relative paths; roots come in the order given. A file reached twice is processed once.
public enum BatchInputDiscovery {
    public static let fileExtensions: Set<String> = ["json", "apns"]

    /// - Parameter excluding: folders never entered, such as the batch's own output folder.
    public static func discover(_ paths: [String], excluding: [URL] = []) throws(BatchInputError) -> [BatchInput] {
        let excluded = Set(excluding.compactMap { realPath($0.path) })
        let directoryRoots = paths.filter { isDirectory($0) }.count
        var inputs: [BatchInput] = []
        var seen = Set<String>()
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw BatchInputError(description: "\(path): \(String(cString: strerror(errno))). Name folders or push files that exist.")
            }
            let root = URL(fileURLWithPath: path)
            if (info.st_mode & S_IFMT) == S_IFDIR {
                // With several folders, each keeps its own name in the output so their files cannot collide.
                let prefix = directoryRoots > 1 ? root.standardizedFileURL.lastPathComponent : ""
                var found: [BatchInput] = []
                walk(root, relative: "", prefix: prefix, excluded: excluded, into: &found)
                found.sort { Array($0.outputPath.utf8).lexicographicallyPrecedes(Array($1.outputPath.utf8)) }
                for input in found where seen.insert(realPath(input.file.path) ?? input.file.path).inserted {
                    inputs.append(input)
                }
            } else if (info.st_mode & S_IFMT) == S_IFREG {
                if seen.insert(realPath(path) ?? path).inserted {
                    inputs.append(BatchInput(file: root, outputPath: root.lastPathComponent))
                }
            } else {
                throw BatchInputError(description: "\(path) is neither a folder nor a regular file.")
            }
        }
        var owners: [String: String] = [:]
        for input in inputs {
            if let other = owners.updateValue(input.displayPath, forKey: input.outputPath) {
                throw BatchInputError(description: "\(other) and \(input.displayPath) would both be saved as \(input.outputPath). Pass their common parent folder instead.")
            }
        }
        return inputs
    }

    private static func walk(_ folder: URL, relative: String, prefix: String, excluded: Set<String>, into found: inout [BatchInput]) {
        if let resolved = realPath(folder.path), excluded.contains(resolved) { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            let detail = (error as NSError).localizedDescription
            let path = join(prefix, relative)
            found.append(BatchInput(file: folder, outputPath: path.isEmpty ? folder.standardizedFileURL.lastPathComponent : path, listingError: detail))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            var link = stat()
            guard lstat(url.path, &link) == 0 else { continue }
            switch link.st_mode & S_IFMT {
            case S_IFDIR:
                walk(url, relative: path, prefix: prefix, excluded: excluded, into: &found)
            case S_IFREG, S_IFLNK:
                var target = stat()
                guard stat(url.path, &target) == 0, (target.st_mode & S_IFMT) == S_IFREG,
                      fileExtensions.contains(url.pathExtension.lowercased()) else { continue }
                found.append(BatchInput(file: url, outputPath: join(prefix, path)))
            default:
                continue
            }
        }
    }

    private static func join(_ prefix: String, _ path: String) -> String {
        [prefix, path].filter { !$0.isEmpty }.joined(separator: "/")
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
