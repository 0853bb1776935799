import Foundation

/// Sends every media download to one local origin instead of the URL's own host, keeping path and query.
///
/// This is how `--media DIR` serves sample images from a loopback server without the internet: the payload
/// keeps its real `https://cdn.example.com/...` URL, App Transport Security is judged on that URL, and only
/// the transfer goes to `http://127.0.0.1:PORT/...`.
public struct MediaHostMapping: Sendable, Hashable {
    /// Scheme, host and port that replace the URL's own, such as "http://127.0.0.1:8080".
    public var origin: URL

    public init(origin: URL) {
        self.origin = origin
    }

    func transferURL(for url: URL) -> URL {
        replacingOrigin(of: url, with: origin)
    }

    /// The URL a device would have reached for a transfer that ended at `transferURL`.
    func deviceURL(for transferURL: URL, original: URL) -> URL {
        guard transferURL.host == origin.host, transferURL.port == origin.port else { return transferURL }
        return replacingOrigin(of: transferURL, with: original)
    }

    private func replacingOrigin(of url: URL, with origin: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let target = URLComponents(url: origin, resolvingAgainstBaseURL: false) else { return url }
        parts.scheme = target.scheme
        parts.host = target.host
        parts.port = target.port
        return parts.url ?? url
    }
}
