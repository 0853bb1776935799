import Foundation
import CImageFixtures
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// A temporary folder removed when the value is no longer used.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nse-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// Real images made by the real encoders, read back as bytes for a test server to serve.
enum Fixture {
    static func jpeg(width: UInt32 = 64, height: UInt32 = 48, progressive: Bool = false) throws -> [UInt8] {
        try make("jpg") { cimagefixtures_write_jpeg($0, width, height, 85, progressive ? 1 : 0, 7) }
    }

    static func png(width: UInt32 = 64, height: UInt32 = 48) throws -> [UInt8] {
        try make("png") { cimagefixtures_write_png($0, width, height, 0, 7) }
    }

    static func gif(width: UInt32 = 32, height: UInt32 = 32, frames: UInt32 = 3) throws -> [UInt8] {
        try make("gif") { cimagefixtures_write_gif($0, width, height, frames, 7) }
    }

    private static func make(_ fileExtension: String, _ write: (UnsafePointer<CChar>) -> Int32) throws -> [UInt8] {
        let folder = try TemporaryFolder()
        let file = folder.file("fixture.\(fileExtension)")
        let status = file.path.withCString(write)
        try #require(status == 0, "the fixture encoder failed")
        return Array(try Data(contentsOf: file))
    }
}

/// A Firebase-console-style payload whose `fcm_options.image` is `imageURL`.
func firebasePayload(imageURL: String?, mutableContent: Bool = true, title: String = "Sale") -> ReceivedPush {
    var aps: [String: JSONValue] = ["alert": .object(["title": .string(title), "body": .string("50% off today")])]
    if mutableContent { aps["mutable-content"] = .int(1) }
    var userInfo: [String: JSONValue] = ["aps": .object(aps), "gcm.message_id": .string("1700000000000000")]
    if let imageURL { userInfo["fcm_options"] = .object(["image": .string(imageURL)]) }
    return ReceivedPush(kind: .apns, userInfo: userInfo, payloadBytes: JSONValue.object(userInfo).compactData().count, diagnostics: [])
}

/// A profile for loopback servers: plain http allowed, a short budget so hostile servers end quickly.
/// iOS's own 30 s by default, which a starved machine cannot run into: a test that expects a time-out passes a short budget.
func loopbackProfile(budget: Duration = .seconds(30)) -> DeviceProfile {
    var profile = DeviceProfile()
    profile.allowsHTTP = true
    profile.timeBudget = budget
    return profile
}

/// Serves fixed responses by path; anything else is a 404.
func cdn(_ routes: [String: ServedResponse]) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request in routes[request.path] ?? .notFound }
}

extension ProcessResult {
    var codes: [DiagnosticCode] { diagnostics.map(\.code) }
    var errorCodes: [DiagnosticCode] { diagnostics.filter { $0.severity == .error }.map(\.code) }
}
