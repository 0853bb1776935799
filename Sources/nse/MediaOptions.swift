import Foundation
import ArgumentParser
import NSEMedia
import NSEMediaServer

/// `--media DIR`, shared by `process` and `batch`: serve a folder on loopback and fetch every media URL from it.
struct MediaOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve this folder on a loopback server and fetch every media URL from it (path kept).", valueName: "dir"))
    var media: String?

    func validate() throws {
        var isDirectory: ObjCBool = false
        if let media, !(FileManager.default.fileExists(atPath: media, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw ValidationError("--media \(media) is not a folder.")
        }
    }

    /// Starts the server when `--media` is given; stop it when done.
    func startServer() throws -> LoopbackHTTPServer? {
        try media.map { root in
            let directory = MediaDirectory(root: root)
            return try LoopbackHTTPServer { directory.respond(to: $0) }
        }
    }

    /// Starts the server when `--media` is given, noting the paths the folder lacks (`takeMissingFiles()` after
    /// each push names the local file a 404 stands for); stop it when done.
    func startFolder() throws -> LocalMediaFolder? {
        try media.map { try LocalMediaFolder(folder: URL(fileURLWithPath: $0)) }
    }

    /// Sends transfers to `server` instead of each URL's own host.
    static func mapping(to server: LoopbackHTTPServer?) -> MediaHostMapping? {
        server.flatMap { URL(string: $0.baseURL) }.map(MediaHostMapping.init(origin:))
    }
}
