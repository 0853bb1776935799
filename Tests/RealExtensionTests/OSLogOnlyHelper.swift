// A helper file of an extension that imports only OSLog: on Apple, OSLog re-exports Foundation, so `Bundle`,
// `Date` and `URL` need no import of their own.
import OSLog

enum ExtensionIdentity {
    static let logger = Logger(subsystem: Bundle.main.bundleIdentifier ?? "com.example.app.NotificationService", category: "identity")

    static func describe(_ url: URL?) -> String {
        let stamp = Date(timeIntervalSince1970: 0)
        logger.info("identity asked at \(stamp.timeIntervalSince1970, privacy: .public)")
        return url?.lastPathComponent ?? "none"
    }
}
