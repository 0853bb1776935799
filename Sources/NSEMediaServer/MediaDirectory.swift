#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Serves the files under a directory as a CDN would, including the misbehaving CDNs described by
/// `NAME.serve.json` sidecars (see docs/sample-media-server.md).
///
/// ```swift
/// let media = MediaDirectory(root: "samples/media")
/// let server = try LoopbackHTTPServer(handler: media.respond(to:))
/// ```
public struct MediaDirectory: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// Answers GET and HEAD for files under `root`.
    ///
    /// The path is normalized so `..` can never leave `root` (403), nor can a symbolic link pointing outside
    /// it (403). Missing files, directories and the sidecars themselves are 404. A sidecar that cannot be
    /// used gets a 500 page naming the problem, so a broken sample is noticed rather than served plainly.
    public func respond(to request: HTTPRequest) -> ServedResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var page = ServedResponse.page(status: 405, message: "The media directory serves GET and HEAD only.")
            page.headers.append(("Allow", "GET, HEAD"))
            return page
        }
        let components: [String]
        switch Self.normalizedComponents(of: request.path) {
        case .inside(let found): components = found
        case .escapes: return Self.forbidden
        case .invalid: return .notFound
        }
        guard let name = components.last, !name.hasSuffix(ServeSidecar.fileSuffix) else { return .notFound }
        guard let rootPath = Self.realPath(root) else {
            return .page(status: 500, message: "The media directory \(root) does not exist.")
        }

        let filePath = rootPath + "/" + components.joined(separator: "/")
        let file = Self.inspect(filePath, within: rootPath)
        let sidecarFile = Self.inspect(filePath + ServeSidecar.fileSuffix, within: rootPath)
        if file == .outside || sidecarFile == .outside { return Self.forbidden }

        let fileSize: Int?
        if case .regularFile(let size) = file { fileSize = size } else { fileSize = nil }
        guard case .regularFile = sidecarFile else {
            guard fileSize != nil else { return .notFound }
            return ServedResponse(status: 200, headers: [("Content-Type", Self.contentType(forFileName: name))], body: .file(path: filePath))
        }

        let sidecarName = components.joined(separator: "/") + ServeSidecar.fileSuffix
        do {
            let sidecar = try ServeSidecar(contentsOf: filePath + ServeSidecar.fileSuffix)
            return try Self.response(
                for: request, name: name, file: fileSize.map { (filePath, $0) }, following: sidecar)
        } catch {
            return .page(status: 500, message: "The sample's sidecar \(sidecarName) is invalid: \(error.message)")
        }
    }

    private static let forbidden = ServedResponse.page(status: 403, message: "The path leads outside the media directory.")

    /// Builds the misbehaving response a sidecar describes; `file` is the sample's path and size, if it exists.
    static func response(
        for request: HTTPRequest, name: String, file: (path: String, size: Int)?, following sidecar: ServeSidecar
    ) throws(SidecarError) -> ServedResponse {
        var response = ServedResponse(status: sidecar.status ?? 200, delayBeforeHeaders: .milliseconds(sidecar.delayMs))
        response.headers = [("Content-Type", sidecar.contentType ?? contentType(forFileName: name))]
        for field in sidecar.headers {
            response.headers.removeAll { $0.name.lowercased() == field.name.lowercased() }
            response.headers.append(field)
        }

        let fileSize = file?.size ?? 0
        // The sample's bytes: the file, then zero bytes up to padTo.
        let contentLength = max(fileSize, sidecar.padTo ?? 0)
        switch sidecar.body {
        case .file:
            if let file, sidecar.padTo == nil || contentLength == file.size {
                response.body = .file(path: file.path)
            } else {
                response.body = .fileStream(.init(path: file?.path, length: contentLength))
            }
        case .endless:
            response.body = .endless(byte: 0)
        case .stall:
            response.body = .stall
        case .trickle:
            response.body = .fileStream(.init(
                path: file?.path, length: contentLength,
                bytesPerChunk: sidecar.trickleBytesPerChunk, interval: .milliseconds(sidecar.trickleIntervalMs)))
        case .truncate:
            if let declared = sidecar.declaredLength {
                guard declared > contentLength else {
                    throw SidecarError(message: "\"declaredLength\" (\(declared)) must exceed the \(contentLength) bytes sent, or nothing is cut short")
                }
                // Declare more than there is: the zero padding past contentLength is never sent.
                response.body = .fileStream(.init(path: file?.path, length: declared, sendOnly: contentLength))
            } else {
                guard contentLength >= 2 else {
                    throw SidecarError(message: "body \"truncate\" needs a file (or padTo) of 2 bytes or more, or a \"declaredLength\"")
                }
                // Declare the whole sample, send its first half: a download cut off midway.
                response.body = .fileStream(.init(path: file?.path, length: contentLength, sendOnly: contentLength / 2))
            }
        case .redirectLoop:
            let hop = redirectHop(in: request.query) + 1
            let path = request.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? request.path
            response.status = sidecar.status ?? 302
            response.headers.removeAll { $0.name.lowercased() == "location" }
            response.headers.append(("Location", "\(path)?loop=\(hop)"))
            response.body = .bytes([])
        }
        return response
    }

    /// The `loop=N` counter a redirect loop put in the query; 0 on the first request.
    private static func redirectHop(in query: String?) -> Int {
        guard let query else { return 0 }
        for item in query.split(separator: "&") where item.hasPrefix("loop=") {
            return Int(item.dropFirst(5)) ?? 0
        }
        return 0
    }

    enum NormalizedPath: Equatable {
        case inside([String])
        /// `..` would climb above the root.
        case escapes
        /// The path cannot name a file (it holds NUL, or is not a path at all).
        case invalid
    }

    /// Resolves `.` and `..` lexically, before the file system sees the path.
    static func normalizedComponents(of path: String) -> NormalizedPath {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return .invalid }
        var components: [String] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return .escapes }
                components.removeLast()
            default: components.append(String(component))
            }
        }
        return .inside(components)
    }

    enum Inspection: Equatable {
        case missing
        case regularFile(size: Int)
        /// A directory, device or other thing that is not served.
        case notAFile
        /// It exists but resolves (through a symbolic link) outside the root.
        case outside
    }

    /// What is at `path`, following symbolic links, and whether it really lies under `rootPath`.
    static func inspect(_ path: String, within rootPath: String) -> Inspection {
        var info = stat()
        guard stat(path, &info) == 0, let resolved = realPath(path) else { return .missing }
        guard resolved == rootPath || resolved.hasPrefix(rootPath == "/" ? "/" : rootPath + "/") else { return .outside }
        return (info.st_mode & S_IFMT) == S_IFREG ? .regularFile(size: Int(info.st_size)) : .notAFile
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
