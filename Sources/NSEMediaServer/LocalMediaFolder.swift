import Foundation
import NSEPush
import Synchronization

/// A folder served on loopback in place of every media host (`nse process --media DIR`, `ExtensionHarness(media:)`),
/// noting each path it had no file for, so a run can say which local file it looked for: a mapped 404 otherwise
/// reads as the CDN's own. The one place for that message.
///
/// ```swift
/// let media = try LocalMediaFolder(folder: URL(fileURLWithPath: "samples/media"))
/// // ... fetch through media.server.baseURL ...
/// result.diagnostics += media.takeMissingFiles()
/// ```
public final class LocalMediaFolder: Sendable {
    public let server: LoopbackHTTPServer
    /// The folder, absolute and standardized, as the messages name it.
    public let folder: URL
    private let missing: MissingPaths

    public init(folder: URL) throws {
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

    /// One finding per path asked for since the last call that the folder has no file for, then forgets them: a
    /// command that runs pushes one after another takes each push's own.
    public func takeMissingFiles() -> [Diagnostic] {
        missing.take().map { path in
            .warning(.mediaHTTPStatus, "The media folder has no file for \(path): nse looked for \(folder.path + path) and answered HTTP 404. Put the image there, or fix the URL's path.")
        }
    }

    public func stop() {
        server.stop()
    }
}

/// Paths the server answered 404, noted by its connection threads and read after a run.
private final class MissingPaths: Sendable {
    private static let limit = 20
    private let found = Mutex<[String]>([])

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
