import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// `nse serve --proxy`: the plain port's HTTP/1.1 connections also answer CONNECT and absolute-form requests. A
/// push host's TLS ends here, with a certificate for that host signed by the local CA, and the emulator answers
/// behind it; another host is refused or passed on, as `other` says.
public final class ProxyService: Sendable {
    let other: ProxyOtherHosts
    /// The sockets the proxy's port holds, counted against `maxConnections`: the port's accepted connections
    /// (HTTPServer counts them here) and the outgoing half of each tunnel, so `--max-connections` bounds the
    /// descriptors whatever mode the connections are in.
    let sockets = ConnectionCount()
    let maxConnections: Int
    private let ca: SigningCA
    /// One TLS context per push host, made when a client first asks for the host (five at most).
    private let contexts = Mutex<[String: NIOSSLContext]>([:])

    init(other: ProxyOtherHosts, ca: LocalCA, maxConnections: Int) {
        self.other = other
        self.ca = SigningCA(ca: ca)
        self.maxConnections = maxConnections
    }

    /// Counts a tunnel's outgoing socket; false (nothing counted) when the port holds `maxConnections` already.
    func claimTunnelSocket() -> Bool {
        sockets.claim(limit: maxConnections)
    }

    /// The TLS context whose certificate names `host`, signed by the local CA.
    func tlsContext(for host: String) throws -> NIOSSLContext {
        if let known = contexts.withLock({ $0[host] }) { return known }
        let issued = try ca.ca.issueHostCertificate(for: host)
        let made = try HTTPServer.tlsContext(certificatePEM: issued.certificate, keyPEM: issued.key)
        return contexts.withLock { contexts in
            if let raced = contexts[host] { return raced }
            contexts[host] = made
            return made
        }
    }

    /// The HTTP/1.1 server pipeline as `configureHTTPServerPipeline` makes it, with two differences: the request
    /// decoder hands on the bytes that follow a CONNECT (a client may send its TLS hello at once), and the proxy's
    /// handler stands before the endpoints' so it sees each request first.
    func configureHTTP1(
        _ channel: any Channel, responder: any RequestResponder, activity: ConnectionActivity, connection: ConnectionContext, requestTimeout: TimeAmount
    ) throws {
        // In front of the decoder, as on a plain connection; removed with the HTTP handlers when a CONNECT hands the
        // connection over (a tunnel or the push host's TLS, which has deadlines of its own).
        let deadline = RequestDeadline(activity: activity, timeout: requestTimeout)
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        let http: [any RemovableChannelHandler] = [
            HTTPResponseEncoder(), HTTPServerPipelineHandler(), NIOHTTPResponseHeadersValidator(), HTTPServerProtocolErrorHandler(),
        ]
        let requests = RequestHandler(responder: responder, activity: activity, connection: connection)
        let proxy = ProxyHandler(
            service: self, responder: responder, activity: activity, requestTimeout: requestTimeout, decoder: decoder,
            httpHandlers: [deadline] + http + [requests])
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(deadline)
        try pipeline.addHandler(http[0])
        try pipeline.addHandler(decoder)
        try pipeline.addHandlers(Array(http.dropFirst()))
        try pipeline.addHandler(proxy)
        try pipeline.addHandler(requests)
    }
}

/// The local CA, shared by the event loops. Unchecked: swift-crypto does not mark its P256 key Sendable, but the CA
/// is immutable (`let`s only) and signing reads it without changing it.
private struct SigningCA: @unchecked Sendable {
    let ca: LocalCA
}

/// The endpoints behind a CONNECT to a push host: each request carries that host, whatever its own `host` or
/// `:authority` says, since the real service is reached by the host connected to (APNs's environment follows it).
struct EmulatedHost: RequestResponder {
    let host: String
    let endpoints: any RequestResponder

    func respond(to request: ServerRequest) async -> ServerResponse {
        var request = request
        request.headers.removeAll { $0.name == "host" }
        request.headers.insert((name: "host", value: host), at: 0)
        return await endpoints.respond(to: request)
    }
}

/// The endpoints' request handler leaves the pipeline when a CONNECT turns its connection into TLS or a tunnel.
extension RequestHandler: RemovableChannelHandler {}
