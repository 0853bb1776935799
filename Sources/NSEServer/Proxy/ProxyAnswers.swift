/// What the proxy answers when it does not pass a request on: each status with its reason phrase and a body a
/// person reads. The reason phrase carries the gist too, since clients that fail a CONNECT often show only the
/// status line (Python's http.client: "Tunnel connection failed: 403 ...").
enum ProxyAnswer {
    /// Another host than the push hosts, with `--proxy-other deny`.
    case denied(ProxyTarget)
    /// A CONNECT target or absolute URL that cannot be read.
    case badTarget
    /// `--proxy-other tunnel` could not connect to the host.
    case unreachable(ProxyTarget, String)
    /// An absolute-form request's body is longer than the server reads.
    case bodyTooLarge
    /// A CONNECT to a push host on a port its service does not listen on: never tunnelled to the real service.
    case notAPushPort(ProxyTarget)
    /// A tunnel would take the port past `--max-connections` sockets.
    case tooManyConnections(limit: Int)

    var status: Int {
        switch self {
        case .denied: 403
        case .badTarget: 400
        case .unreachable: 502
        case .bodyTooLarge: 413
        case .notAPushPort: 403
        case .tooManyConnections: 503
        }
    }

    var reasonPhrase: String {
        switch self {
        case .denied(let target): "Forbidden by nse serve --proxy-other deny: \(target.authority)"
        case .badTarget: "Bad Request: nse serve --proxy cannot read the target"
        case .unreachable(let target, _): "Bad Gateway: nse serve --proxy-other tunnel cannot reach \(target.authority)"
        case .bodyTooLarge: "Content Too Large"
        case .notAPushPort(let target): "Forbidden by nse serve --proxy: \(target.host) answers on ports \(ProxyRoute.pushPortList) only"
        case .tooManyConnections(let limit): "Service Unavailable: nse serve holds --max-connections \(limit) sockets already"
        }
    }

    var body: String {
        switch self {
        case .denied(let target):
            "nse serve --proxy refused \(target.authority): it answers only for the push hosts (\(ProxyRoute.pushHosts.joined(separator: ", ")), "
                + "ports \(ProxyRoute.pushPortList) for CONNECT), and passes no other host on "
                + "with --proxy-other deny (the default), so a test never leaves the machine by accident. "
                + "Start it with --proxy-other tunnel to let \(target.host) through unchanged, or leave it out of the proxy (NO_PROXY).\n"
        case .badTarget:
            "nse serve --proxy cannot read the request's target: a CONNECT names host:port (an IPv6 address in brackets, [::1]:443), "
                + "a proxied plain HTTP request an http:// URL; a host is letters, digits, '-', '.' and '_', at most \(ProxyTarget.maxHostLength) "
                + "characters, and a port 1 to 65535.\n"
        case .unreachable(let target, let error):
            "nse serve --proxy-other tunnel could not reach \(target.authority): \(error).\n"
        case .bodyTooLarge:
            "nse serve --proxy reads request bodies up to \(HTTPServer.maxBodyBytes) bytes.\n"
        case .notAPushPort(let target):
            "nse serve --proxy answers for \(target.host) on ports \(ProxyRoute.pushPortList) only, as the real service listens on no other; "
                + "it never passes a push host on to the real service, whatever --proxy-other says. Use port 443 (or 2197 for APNs).\n"
        case .tooManyConnections(let limit):
            "nse serve holds \(limit) sockets on this port already (--max-connections counts accepted connections and the outgoing half "
                + "of each --proxy-other tunnel): close some, or start it with a higher --max-connections.\n"
        }
    }

    /// The answer as raw HTTP/1.1 bytes, for a connection whose HTTP handlers are gone (a failed tunnel).
    var rawResponse: String {
        let bytes = body.utf8.count
        return "HTTP/1.1 \(status) \(reasonPhrase)\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: \(bytes)\r\nconnection: close\r\n\r\n\(body)"
    }
}
