import Foundation

#if DEBUG
/// How often an image request's key and URL were parsed, for the test that holds a push to one parse of each
/// (`Tests/UnitTests/ImageRequestParseTests`). Debug builds only, and only for URLs a test watches, so parallel
/// tests and long batches count nothing else.
package enum ImageRequestParses {
    /// Guarded by `lock`; a class so the counts are shared, not copied.
    private final class Counts: @unchecked Sendable {
        let lock = NSLock()
        var keys: [String: Int] = [:]
        var urls: [String: Int] = [:]
    }

    private static let counts = Counts()

    /// Counts parses of `url` from now on.
    package static func watch(_ url: String) {
        counts.lock.withLock {
            counts.keys[url] = 0
            counts.urls[url] = 0
        }
    }

    /// How often the payload's image key was read for `url`, and how often `url` itself was parsed.
    package static func count(_ url: String) -> (keys: Int, urls: Int) {
        counts.lock.withLock { (counts.keys[url] ?? 0, counts.urls[url] ?? 0) }
    }

    static func noteKey(_ url: String) {
        counts.lock.withLock { if let seen = counts.keys[url] { counts.keys[url] = seen + 1 } }
    }

    static func noteURL(_ url: String) {
        counts.lock.withLock { if let seen = counts.urls[url] { counts.urls[url] = seen + 1 } }
    }
}
#endif
