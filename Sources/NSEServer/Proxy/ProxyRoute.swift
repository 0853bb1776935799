/// What `nse serve --proxy` does with a host a client asks it for, by CONNECT or by an absolute-form request
/// (`GET http://host/...`): the push services' hosts are served by the emulator, every other host follows
/// `--proxy-other`.
public enum ProxyOtherHosts: String, Sendable, CaseIterable {
    /// Refused with 403, so a test never leaves the machine by accident (the default).
    case deny
    /// Passed on unchanged: a CONNECT becomes a byte tunnel, a plain HTTP request is forwarded.
    case tunnel
}

/// The host and port a proxy request names.
struct ProxyTarget: Equatable, Sendable {
    /// Lowercased; an IPv6 address without its brackets.
    var host: String
    var port: Int

    /// The longest host name DNS allows (RFC 1035 section 2.3.4).
    static let maxHostLength = 253

    /// A CONNECT request's target, `host:port` (RFC 9110 section 9.3.6: the port is required).
    init?(authority: Substring) {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        var host = authority[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        guard Self.isHostName(host) else { return nil }
        self.host = host.lowercased()
        self.port = port
    }

    /// An absolute-form request target, `http://host[:port]/path?query` (RFC 9112 section 3.2.2), and its
    /// origin-form (`/path?query`, `/` when the URL has no path). Only `http`: an `https` URL goes through CONNECT.
    static func absolute(_ target: String) -> (target: ProxyTarget, originForm: String)? {
        let scheme = "http://"
        guard target.count > scheme.count, target.prefix(scheme.count).lowercased() == scheme else { return nil }
        let rest = target.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        guard let parsed = ProxyTarget(authority: hasPort ? authority : authority + ":80") else { return nil }
        let path = rest[authorityEnd...]
        return (parsed, path.hasPrefix("/") ? String(path) : "/" + path)
    }

    /// Letters, digits, `-`, `.`, `_` and, for IPv6, `:`: nothing that could break a status line or a header.
    static func isHostName(_ host: Substring) -> Bool {
        !host.isEmpty && host.utf8.count <= maxHostLength
            && host.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
    }

    /// `host:port` as a CONNECT names it.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// One decision per request: served by the emulator, refused, or passed on.
enum ProxyRoute: Equatable, Sendable {
    /// A push host: the emulator answers as that service.
    case emulate
    case deny
    case tunnel
    /// A push host on a port its service has no TLS on.
    case notAPushPort

    /// The hosts the emulator answers for: APNs (production and sandbox, Apple's "Sending notification requests to
    /// APNs"; `api.development.push.apple.com`, the development host Apple's earlier "Communicating with APNs"
    /// named, which clients still use: aioapns's `connection.py`), and FCM HTTP v1 with the OAuth token endpoint a
    /// service account's `token_uri` names.
    static let pushHosts: [String] = [
        "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com", "fcm.googleapis.com", "oauth2.googleapis.com",
    ]
    /// The ports their TLS is on: 443, and 2197 for APNs (Apple's same page).
    static let pushTLSPorts: Set<Int> = [443, 2197]
    /// "443 and 2197", for the answers that name them.
    static var pushPortList: String { pushTLSPorts.sorted().map(String.init).joined(separator: " and ") }

    /// A CONNECT to a push host on one of its ports is emulated (TLS ends here); to a push host on another port it
    /// is refused whatever `other` says, so a test never reaches the real service; anything else follows `other`.
    static func forConnect(to target: ProxyTarget, other: ProxyOtherHosts) -> ProxyRoute {
        guard pushHosts.contains(target.host) else { return route(other) }
        return pushTLSPorts.contains(target.port) ? .emulate : .notAPushPort
    }

    /// A plain HTTP request to a push host is emulated whatever its port (the services have no plain HTTP to
    /// reach, so nothing else could answer); anything else follows `other`.
    static func forPlainHTTP(to target: ProxyTarget, other: ProxyOtherHosts) -> ProxyRoute {
        pushHosts.contains(target.host) ? .emulate : route(other)
    }

    private static func route(_ other: ProxyOtherHosts) -> ProxyRoute {
        switch other {
        case .deny: .deny
        case .tunnel: .tunnel
        }
    }
}
