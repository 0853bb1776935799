import Foundation
import NSEPush
import Synchronization

/// A folder served on loopback in place of every media host (`nse process --media DIR`, `ExtensionHarness(media:)`),
/// noting each path it had no file for, so a run can say which local file it looked for: a mapped 404 otherwise
/// reads as the CDN's own. The one place for that message.
///
/// ```swift
/// let media = try LocalMediaFolder(folder: URL(fileURLWithPath: "samples/media"))
/// // ... one push fetches through media.server.baseURL ...
/// result.diagnostics += media.missingFiles(namedIn: result.diagnostics)
/// ```
public final class LocalMediaFolder: Sendable {
    public let server: LoopbackHTTPServer
    /// The folder, absolute and standardized.
    public let folder: URL
    /// The folder as the caller named it (relative to the working directory if it was given so), as the messages
    /// name it: `samples/media/img/a.jpg` is what a user can paste, and it reads the same on every machine.
    private let shownPath: String
    private let missing: MissingPaths

    public init(folder: URL) throws {
        var shown = folder.relativePath
        while shown.hasSuffix("/") { shown.removeLast() }
        shownPath = shown
        let folder = folder.standardizedFileURL
        let directory = MediaDirectory(root: folder.path)
        let missing = MissingPaths()
        server = try LoopbackHTTPServer { request in
            let response = directory.respond(to: request)
            if response.status == 404 { missing.note(request.path) }
            return response
        }
        self.folder = folder
        self.missing = missing
    }

    /// One finding per path asked for that the folder has no file for, then forgets them: for a server that serves
    /// one run (the harness's).
    public func takeMissingFiles() -> [Diagnostic] {
        missing.take().map(finding(for:))
    }

    /// One finding per path the folder had no file for that one push's diagnostics name in a URL (the finding its
    /// download's HTTP 404 gave): pushes that run side by side (a batch reading ahead) each get their own.
    public func missingFiles(namedIn diagnostics: [Diagnostic]) -> [Diagnostic] {
        let paths = missing.paths
        guard !paths.isEmpty else { return [] }
        let messages = diagnostics.filter { $0.code.rawValue.hasPrefix("media.") }.map(\.message)
        return paths.filter { path in
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            return messages.contains { $0.contains(path) || $0.contains(encoded) }
        }.map(finding(for:))
    }

    private func finding(for path: String) -> Diagnostic {
        .warning(.mediaHTTPStatus, "The media folder has no file for \(path): nse looked for \(shownPath + path) and answered HTTP 404. Put the image there, or fix the URL's path.")
    }

    public func stop() {
        server.stop()
    }
}

/// Paths the server answered 404, noted by its connection threads and read after a run.
private final class MissingPaths: Sendable {
    /// Bounded: a batch of a million pushes asking for missing files keeps the first thousand.
    private static let limit = 1000
    private let found = Mutex<[String]>([])

    var paths: [String] { found.withLock { $0 } }

    func note(_ path: String) {
        found.withLock { if !$0.contains(path), $0.count < Self.limit { $0.append(path) } }
    }

    func take() -> [String] {
        found.withLock { found in
            defer { found = [] }
            return found
        }
    }
}
