import Foundation
import NSEPush
import NSEReports

/// Why a batch cannot start: a usage error (exit status 2).
package struct BatchInputError: Error, Sendable, CustomStringConvertible {
    package var description: String
}

/// Finds the push files under the folders (and files) a user names, in a deterministic order.
///
/// Folders are walked recursively for `.json` and `.apns` files (any case). Hidden files and folders (a leading
/// dot), the output folder, symbolic links to folders (which could loop) and anything that is not a regular
/// file (a FIFO would block the reader) are skipped. Within a root, files come in the byte order of their
/// relative paths; roots come in the order given. A file reached twice is processed once.
package enum BatchInputDiscovery {
    package static let fileExtensions: Set<String> = ["json", "apns"]

    /// - Parameter excluding: folders never entered, such as the batch's own output folder.
    package static func discover(_ paths: [String], excluding: [URL] = []) throws(BatchInputError) -> [BatchInput] {
        let excluded = Set(excluding.compactMap { realPath($0.path) })
        let directoryRoots = paths.filter { isDirectory($0) }
        // With several folders, each keeps as much of its path as tells it apart (`a/in`, `b/in`), so their files cannot collide.
        let folderPrefixes = Dictionary(zip(directoryRoots, ResultFolderNames.distinctSuffixes(of: directoryRoots)), uniquingKeysWith: { first, _ in first })
        var inputs: [BatchInput] = []
        var seen = Set<String>()
        var namedFiles: [Int] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw BatchInputError(description: "\(path): \(String(cString: strerror(errno))). Name folders or push files that exist.")
            }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            let root = URL(fileURLWithPath: path, isDirectory: isFolder)
            if isFolder {
                let prefix = directoryRoots.count > 1 ? folderPrefixes[path] ?? root.standardizedFileURL.lastPathComponent : ""
                var found: [Found] = []
                let resolvedRoot = realPath(path) ?? path
                walk(root, resolved: resolvedRoot, relative: "", prefix: prefix, excluded: excluded, into: &found)
                found.sort { Array($0.input.outputPath.utf8).lexicographicallyPrecedes(Array($1.input.outputPath.utf8)) }
                for entry in found where seen.insert(entry.identity).inserted {
                    inputs.append(entry.input)
                }
            } else if (info.st_mode & S_IFMT) == S_IFREG {
                if seen.insert(realPath(path) ?? path).inserted {
                    namedFiles.append(inputs.count)
                    inputs.append(BatchInput(file: root, outputPath: root.lastPathComponent))
                }
            } else if seen.insert(realPath(path) ?? path).inserted {
                // A FIFO, device or socket named on its own is reported as a folder's would be, never read.
                namedFiles.append(inputs.count)
                inputs.append(BatchInput(file: root, outputPath: root.lastPathComponent, unreadableReason: notRegularReason(info.st_mode, path: path)))
            }
        }
        // Files named on their own are named as `nse process` names them; then whatever still collides (a named
        // file and a walked one) is numbered: every push gets a result folder of its own.
        for (index, name) in zip(namedFiles, ResultFolderNames.distinctSuffixes(of: namedFiles.map { inputs[$0].file.path })) {
            inputs[index].outputPath = name
        }
        for (index, name) in ResultFolderNames.unique(inputs.map(\.outputPath)).enumerated() {
            inputs[index].outputPath = name
        }
        return inputs
    }

    /// A discovered input and the path that identifies its file (symbolic links resolved), so a file reached
    /// twice is processed once.
    private struct Found {
        var input: BatchInput
        var identity: String
    }

    /// Walks `folder`, whose path with every symbolic link resolved is `resolved`. The walk never enters a link to
    /// a folder, so a regular file's resolved path is `resolved` plus its name: only links cost a `realpath(3)`,
    /// and each entry costs one `lstat(2)` (no push of a batch starts before discovery ends).
    private static func walk(_ folder: URL, resolved: String, relative: String, prefix: String, excluded: Set<String>, into found: inout [Found]) {
        if excluded.contains(resolved) { return }
        let entries: [DirectoryEntry]
        do {
            entries = try listRaw(folder)
        } catch {
            let path = join(prefix, relative)
            found.append(Found(
                input: BatchInput(file: folder, outputPath: path.isEmpty ? folder.standardizedFileURL.lastPathComponent : path, listingError: error.description),
                identity: resolved))
            return
        }
        let folderPath = folder.path
        for entry in entries where !entry.display.hasPrefix(".") {
            let path = join(relative, entry.display)
            let entryPath = child(entry.display, of: folderPath)
            let resolvedPath = child(entry.display, of: resolved)
            guard let name = entry.name else {
                // Foundation cannot even name such a file; it is reported, not silently passed over.
                if isPushFileName(entry.display) {
                    let url = folder.appendingPathComponent(entry.display, isDirectory: false)
                    found.append(Found(
                        input: BatchInput(file: url, outputPath: join(prefix, path), unreadableReason: "the file name is not valid UTF-8 (shown with \\x escapes), so nse cannot name its result. Rename the file"),
                        identity: resolvedPath))
                }
                continue
            }
            var link = stat()
            guard lstat(entryPath, &link) == 0 else { continue }
            let kind = link.st_mode & S_IFMT
            if kind == S_IFDIR {
                walk(folder.appendingPathComponent(entry.display, isDirectory: true), resolved: resolvedPath, relative: path, prefix: prefix, excluded: excluded, into: &found)
                continue
            }
            guard isPushFileName(name) else { continue }
            let url = folder.appendingPathComponent(entry.display, isDirectory: false)
            let output = join(prefix, path)
            switch kind {
            case S_IFREG:
                found.append(Found(input: BatchInput(file: url, outputPath: output), identity: resolvedPath))
            case S_IFLNK:
                var target = stat()
                if stat(entryPath, &target) != 0 {
                    found.append(Found(input: BatchInput(file: url, outputPath: output, unreadableReason: "it is a symbolic link to \(linkTarget(url)), which does not exist"), identity: resolvedPath))
                } else if (target.st_mode & S_IFMT) == S_IFDIR {
                    continue  // A link to a folder could loop: documented as skipped.
                } else if (target.st_mode & S_IFMT) != S_IFREG {
                    found.append(Found(input: BatchInput(file: url, outputPath: output, unreadableReason: notRegularReason(target.st_mode, path: url.relativePath)), identity: realPath(entryPath) ?? resolvedPath))
                } else {
                    found.append(Found(input: BatchInput(file: url, outputPath: output), identity: realPath(entryPath) ?? resolvedPath))
                }
            default:
                found.append(Found(input: BatchInput(file: url, outputPath: output, unreadableReason: notRegularReason(link.st_mode, path: url.relativePath)), identity: resolvedPath))
            }
        }
    }

    /// Why a FIFO, device or socket is not read, in the words every command uses (`RegularFile`).
    private static func notRegularReason(_ mode: mode_t, path: String) -> String {
        RegularFileError.notRegular(RegularFile.FileKind(mode: mode) ?? .other).reason(path: path)
    }

    /// Whether the name ends in `.json` or `.apns` (any case) after a stem: read from the name alone, since
    /// `URL(fileURLWithPath:)` would look the name up on disk.
    private static func isPushFileName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return fileExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private static func linkTarget(_ url: URL) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "a missing file"
    }

    /// One name in a folder: `name` when it is valid UTF-8, and always a `display` form (invalid bytes as \xNN).
    struct DirectoryEntry {
        var name: String?
        var display: String
    }

    struct ListingError: Error, CustomStringConvertible {
        var description: String
    }

    /// The folder's names read with readdir(3), byte for byte: Foundation's listing drops or mangles names that
    /// are not UTF-8, and a batch must account for every file it finds.
    static func listRaw(_ folder: URL) throws(ListingError) -> [DirectoryEntry] {
        guard let directory = opendir(folder.path) else { throw ListingError(description: String(cString: strerror(errno))) }
        defer { closedir(directory) }
        var entries: [DirectoryEntry] = []
        while let entry = readdir(directory) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if let name = String(validating: bytes, as: UTF8.self) {
                entries.append(DirectoryEntry(name: name, display: name))
            } else {
                let display = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }.joined()
                entries.append(DirectoryEntry(name: nil, display: display))
            }
        }
        return entries
    }

    private static func join(_ prefix: String, _ path: String) -> String {
        [prefix, path].filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// The path of `name` in the folder at `folder`, which ends in "/" only when it is the root folder.
    private static func child(_ name: String, of folder: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
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
