import struct Foundation.URL
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// One listening port that speaks HTTP/1.1 and HTTP/2 over plain TCP: a connection that opens with the HTTP/2
/// preface (RFC 9113 section 3.4, "prior knowledge", what `curl --http2-prior-knowledge` and APNs clients
/// configured for h2c send) gets SwiftNIO's HTTP/2 stack, any other gets its HTTP/1.1 stack. An HTTP/2 stream
/// (`HTTP2StreamHandler`) and an HTTP/1.1 request (`RequestHandler`) both become a `ServerRequest`, so the endpoints
/// see one kind of request.
public final class HTTPServer: Sendable {
    /// The largest body read: PushReader's input limit (256 times APNs' 4096 bytes). A longer body is drained,
    /// not kept, and its request marked `bodyTooLarge`, so memory stays bounded whatever a client sends.
    public static let maxBodyBytes = 1 << 20

    /// The HTTP/2 connection-level receive window SwiftNIO keeps topped up (RFC 9113 section 6.9): 4 MiB, room for
    /// 1,000 streams' 4 KB APNs payloads at once. At HTTP/2's default 64 KiB, a client sending a hundred 3 KB pushes
    /// at once waits for window updates, and httpx's wait can hang for good (pydantic/httpx2 issue #1133). Bodies
    /// are read as they come whatever the window (each capped by `maxBodyBytes`), so it costs no memory.
    static let connectionWindowBytes = 4 << 20

    private let channel: any Channel
    public let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// What a connection may hold, and for how long: the bounds that keep hostile or broken clients from holding
    /// the server's sockets, memory or time (docs/serve.md, "Limits").
    public struct Limits: Sendable {
        /// Connections open at once on this port; one more is closed as soon as it is accepted.
        public var maxConnections: Int
        /// A connection that sends and receives nothing for this long, with no request waiting for its answer,
        /// is closed.
        public var idleTimeout: TimeAmount
        /// A request must arrive whole (head and body) within this time of its first byte (HTTP/1.1) or of its
        /// stream's opening (HTTP/2); else the connection (HTTP/1.1) or the stream (HTTP/2) is closed. A client
        /// that trickles a byte now and then is never idle, so the idle timeout alone would not end it.
        public var requestTimeout: TimeAmount

        public init(maxConnections: Int = Limits.defaultMaxConnections, idleTimeout: TimeAmount = .minutes(5), requestTimeout: TimeAmount = .seconds(30)) {
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
        }

        /// 20,000 connections, or fewer when the open-file limit (raised to its hard limit at start,
        /// `OpenFileLimit.raise()`) leaves less room: that limit less 256 descriptors for the journal, the
        /// pipeline's files and downloads.
        public static var defaultMaxConnections: Int {
            max(1, min(20_000, OpenFileLimit.current - 256))
        }
    }

    /// Listens on `host`:`port` (0: a free port, read back from `port`). With `tls`, every connection is TLS and
    /// ALPN picks the protocol (h2, else HTTP/1.1); without, the first bytes do. With `clientCertificates`, the
    /// handshake takes any client certificate and each request is judged by it (APNs's certificate-based trust).
    public static func start(
        host: String, port: Int, group: any EventLoopGroup, tls: NIOSSLContext? = nil, clientCertificates: ClientCertificateTrust? = nil,
        limits: Limits = Limits(), responder: any RequestResponder, proxy: ProxyService? = nil
    ) async throws -> HTTPServer {
        // A proxy's port shares its count with the proxy's tunnels: each outgoing socket is one more descriptor.
        let open = proxy?.sockets ?? ConnectionCount()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                // Over the limit: closed at once (the client reads the end of the stream), before any buffer is made.
                guard open.claim(limit: limits.maxConnections) else {
                    return channel.eventLoop.makeFailedFuture(ConnectionCount.TooMany())
                }
                channel.closeFuture.whenComplete { _ in open.release() }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: limits.idleTimeout))
                    let activity = ConnectionActivity()
                    try pipeline.addHandler(CloseWhenIdle(activity: activity))
                    guard let tls else {
                        try pipeline.addHandler(ProtocolDetector(
                            responder: responder, activity: activity, connection: ConnectionContext(), requestTimeout: limits.requestTimeout, proxy: proxy))
                        return
                    }
                    try ProtocolDetector.configureTLS(
                        channel, context: tls, clientCertificates: clientCertificates, responder: responder, activity: activity, requestTimeout: limits.requestTimeout,
                        handshakeTimeout: limits.requestTimeout)
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        return HTTPServer(channel: channel, port: channel.localAddress?.port ?? port)
    }

    /// A TLS server context offering ALPN `h2` then `http/1.1`, for a certificate and key in PEM. With
    /// `clientCertificateCA`, it asks for a client certificate (APNs's certificate-based trust,
    /// `POST /emulator/v1/client-certificates`) and lets a client connect without one; `configureTLS` with a
    /// `ClientCertificateTrust` then takes any certificate and leaves the judgement to APNs's answers.
    static func tlsContext(certificatePEM: String, keyPEM: String, clientCertificateCA: URL? = nil) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["h2", "http/1.1"]
        if let clientCertificateCA {
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates([try NIOSSLCertificate(file: clientCertificateCA.path, format: .pem)])
        }
        return try NIOSSLContext(configuration: tls)
    }

    /// Stops listening; open connections end with the event loop group.
    public func stop() async {
        try? await channel.close()
    }
}

/// Reads a connection's first bytes until they either are the HTTP/2 connection preface or cannot be, then
/// sets up that protocol's handlers behind itself, hands them the bytes read so far and leaves the pipeline.
final class ProtocolDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private let responder: any RequestResponder
    private let activity: ConnectionActivity
    private let connection: ConnectionContext
    private let requestTimeout: TimeAmount
    private let proxy: ProxyService?
    private var buffered: ByteBuffer?

    init(responder: any RequestResponder, activity: ConnectionActivity, connection: ConnectionContext, requestTimeout: TimeAmount, proxy: ProxyService? = nil) {
        self.responder = responder
        self.activity = activity
        self.connection = connection
        self.requestTimeout = requestTimeout
        self.proxy = proxy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if buffered == nil {
            buffered = bytes
        } else {
            buffered?.writeBuffer(&bytes)
        }
        guard let seen = buffered else { return }
        let count = min(seen.readableBytes, Self.preface.count)
        let matches = seen.readableBytesView.prefix(count).elementsEqual(Self.preface.prefix(count))
        if matches, count < Self.preface.count { return }
        do {
            if matches {
                try Self.configureHTTP2(context.channel, responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout)
            } else {
                try Self.configureHTTP1(context.channel, responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout, proxy: proxy)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        buffered = nil
        context.fireChannelRead(wrapInboundOut(seen))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    static func configureHTTP1(
        _ channel: any Channel, responder: any RequestResponder, activity: ConnectionActivity, connection: ConnectionContext,
        requestTimeout: TimeAmount, proxy: ProxyService? = nil
    ) throws {
        if let proxy {
            return try proxy.configureHTTP1(channel, responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout)
        }
        // In front of the HTTP decoder: it sees a request's first bytes, before a head could be parsed.
        try channel.pipeline.syncOperations.addHandler(RequestDeadline(activity: activity, timeout: requestTimeout))
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(RequestHandler(responder: responder, activity: activity, connection: connection))
    }

    /// TLS, then HTTP/2 when ALPN picks `h2`, else HTTP/1.1: the TLS port's connections and the proxy's
    /// connections to a push host.
    /// The handshake must be done within `handshakeTimeout` of this call (the accept, or the proxy's CONNECT): a
    /// client that trickles its ClientHello a byte at a time is never idle, so the idle timeout alone would not end it.
    static func configureTLS(
        _ channel: any Channel, context: NIOSSLContext, clientCertificates: ClientCertificateTrust? = nil, responder: any RequestResponder,
        activity: ConnectionActivity, requestTimeout: TimeAmount, handshakeTimeout: TimeAmount = .seconds(30)
    ) throws {
        if clientCertificates != nil {
            // Any certificate completes the handshake: APNs answers a bad one 403 BadCertificate, request by request.
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context, customVerificationCallback: { _, verified in verified.succeed(.certificateVerified) }))
        } else {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }
        try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: handshakeTimeout))
        try channel.pipeline.syncOperations.addHandler(ApplicationProtocolNegotiationHandler { result, channel in
            channel.eventLoop.makeCompletedFuture {
                // The handshake is done: the client certificate, if one was presented, is judged once (its dates at each request).
                let connection = ConnectionContext(
                    clientCertificate: try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate?.toDERBytes(),
                    trust: clientCertificates)
                switch result {
                case .negotiated("h2"):
                    try configureHTTP2(channel, responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout)
                case .negotiated:
                    try configureHTTP1(channel, responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout)
                case .fallback:
                    // No ALPN offered: the first bytes say, as on the plain port. aioapns sends HTTP/2 over TLS with no
                    // ALPN at all (its connection.py sets no protocols on its SSL context), and APNs answers it.
                    try channel.pipeline.syncOperations.addHandler(
                        ProtocolDetector(responder: responder, activity: activity, connection: connection, requestTimeout: requestTimeout))
                }
            }
        })
    }

    static func configureHTTP2(_ channel: any Channel, responder: any RequestResponder, activity: ConnectionActivity, connection context: ConnectionContext, requestTimeout: TimeAmount) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            // APNs allows 1000 concurrent streams per connection by default (its SETTINGS frame says so).
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
        ]
        connection.targetWindowSize = HTTPServer.connectionWindowBytes
        let flushes = HeldFlushes()
        try channel.pipeline.syncOperations.addHandler(flushes)
        // Bound to the connection's loop, which its streams share.
        let answers = NIOLoopBound(AnswerBatch(loop: channel.eventLoop, flushes: flushes), eventLoop: channel.eventLoop)
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(
                    HTTP2StreamHandler(responder: responder, activity: activity, answers: answers.value, connection: context, timeout: requestTimeout))
            }
        }
        try channel.pipeline.syncOperations.addHandler(CloseOnError())
        // The whole window at once, not at the first DATA frame: SwiftNIO tops the window up only as data arrives,
        // so a client's first burst would still wait on HTTP/2's default 64 KiB.
        let increment = HTTPServer.connectionWindowBytes - 65_535
        channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment)), promise: nil)
    }
}

/// The requests of one connection being answered (an HTTP/2 connection's streams included): a connection is idle
/// only when none is. Touched only on the connection's event loop, which its streams share.
final class ConnectionActivity: @unchecked Sendable {
    var requestsInFlight = 0
    /// HTTP/1.1: when the request being received must be whole; nil between requests.
    var requestDeadline: Scheduled<Void>?

    /// The request being received arrived whole: its deadline no longer applies.
    func requestArrived() {
        requestDeadline?.cancel()
        requestDeadline = nil
    }

    /// Has `responder` answer `request` off the event loop, the request counted in flight until its answer is back on
    /// `context`'s loop, where `answered` gets it.
    func answer(
        _ request: ServerRequest, with responder: any RequestResponder, context: ChannelHandlerContext,
        _ answered: @escaping (ServerResponse) -> Void
    ) {
        requestsInFlight += 1
        let answer = context.eventLoop.makeFutureWithTask { await responder.respond(to: request) }
        answer.assumeIsolated().whenSuccess { response in
            self.requestsInFlight -= 1
            answered(response)
        }
    }
}

/// An HTTP/2 connection's answers, written together: answers are made off the event loop and each comes back on its
/// own, and SwiftNIO's HTTP/2 writes a stream's frames to the socket at its flush (one system call an answer).
/// The first answer to come back schedules a write of every answer back by then; their flushes are held at the
/// connection's `HeldFlushes`, which flushes the socket once after them. Touched only on the connection's loop.
final class AnswerBatch {
    private let loop: any EventLoop
    private let flushes: HeldFlushes
    private var waiting: [() -> Void] = []

    init(loop: any EventLoop, flushes: HeldFlushes) {
        self.loop = loop
        self.flushes = flushes
    }

    /// `write` writes and flushes one stream's answer.
    func add(_ write: @escaping () -> Void) {
        waiting.append(write)
        guard waiting.count == 1 else { return }
        loop.assumeIsolated().execute { [self] in
            let writes = waiting
            waiting.removeAll(keepingCapacity: true)
            flushes.hold()
            for write in writes { write() }
            flushes.release()
        }
    }
}

/// In an HTTP/2 connection's pipeline between the socket and SwiftNIO's HTTP/2 handler: while held, flushes are
/// noted instead of passed on, and the release passes one.
final class HeldFlushes: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny

    private var context: ChannelHandlerContext?
    private var holding = false
    private var flushWanted = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func flush(context: ChannelHandlerContext) {
        if holding {
            flushWanted = true
        } else {
            context.flush()
        }
    }

    func hold() {
        holding = true
    }

    func release() {
        holding = false
        if flushWanted {
            flushWanted = false
            context?.flush()
        }
    }
}

/// The connections open on one port, counted so that one over the limit is refused.
final class ConnectionCount: Sendable {
    struct TooMany: Error {}

    private let open = Atomic<Int>(0)

    /// Counts a new connection; false (and not counted) when `limit` are open already.
    func claim(limit: Int) -> Bool {
        let (_, now) = open.add(1, ordering: .relaxed)
        guard now > limit else { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    func release() {
        open.subtract(1, ordering: .relaxed)
    }
}

/// HTTP/1.1: from a request's first byte, gives it `timeout` to arrive whole (RequestHandler says when it has),
/// then closes the connection. Bytes that trickle in slowly enough keep IdleStateHandler quiet for ever; this
/// bounds a request's time whatever its pace.
final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let activity: ConnectionActivity
    private let timeout: TimeAmount

    init(activity: ConnectionActivity, timeout: TimeAmount) {
        self.activity = activity
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if activity.requestDeadline == nil { arm(context) }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        activity.requestArrived()
    }

    private func arm(_ context: ChannelHandlerContext) {
        activity.requestDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [activity, self] in
            activity.requestDeadline = nil
            // Bytes of the next request that came while the server was still answering one: its time starts now.
            if activity.requestsInFlight > 0 {
                self.arm(context)
            } else {
                context.close(promise: nil)
            }
        }
    }
}

/// Closes a TLS connection whose handshake is not done `timeout` after this handler joined the pipeline (behind
/// NIOSSLServerHandler, whose handshakeCompleted event ends the wait and removes the handler).
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let done: Bool
        if case .handshakeCompleted? = event as? TLSUserEvent { done = true } else { done = false }
        context.fireUserInboundEventTriggered(event)
        if done { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }
}

/// Closes the connection when IdleStateHandler reports it idle and no request on it waits for its answer.
final class CloseWhenIdle: ChannelInboundHandler {
    typealias InboundIn = Any

    private let activity: ConnectionActivity

    init(activity: ConnectionActivity) {
        self.activity = activity
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if activity.requestsInFlight == 0 { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// Closes a connection whose HTTP/2 handler reported a protocol error (after it sent GOAWAY).
final class CloseOnError: ChannelInboundHandler {
    typealias InboundIn = Any

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// HTTP/1.1: collects one request (head, body, end), has the responder answer it off the event loop, writes the
/// answer. Requests on one connection are answered in order (NIO's pipelining handler holds the next back).
/// HTTP/2's streams have their own handler (`HTTP2StreamHandler`).
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: any RequestResponder
    private let activity: ConnectionActivity
    private let connection: ConnectionContext
    private var head: HTTPRequestHead?
    private var body = RequestBody()
    /// The streamed body being written on this connection, told when it closes.
    private var stream: StreamWriter?

    init(responder: any RequestResponder, activity: ConnectionActivity, connection: ConnectionContext) {
        self.responder = responder
        self.activity = activity
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = RequestBody()
        case .body(let chunk):
            body.append(chunk)
        case .end:
            activity.requestArrived()
            guard let head else { return }
            self.head = nil
            var request = ServerRequest(
                protocolName: "HTTP/1.1", method: head.method.rawValue, target: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body.bytes)
            request.bodyTooLarge = body.tooLarge
            request.connection = connection
            body = RequestBody()
            let complete = request
            let keepAlive = head.isKeepAlive
            let version = head.version
            activity.answer(complete, with: responder, context: context) { response in
                self.write(response, version: version, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// A request that cannot be parsed: NIO's error handler has answered 400; the connection is closed here, so a
    /// client sending garbage does not keep it open.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stream?.closed()
        stream = nil
        context.fireChannelInactive()
    }

    private func write(_ response: ServerResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if let body = response.stream {
            // No length: the body is sent chunked until it ends or either side closes.
            let status = HTTPResponseStatus(statusCode: response.status)
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            let writer = StreamWriter(context: context, framing: .http1, closesAfterEnd: !keepAlive)
            stream = writer
            body.start(writer)
            return
        }
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        headers.replaceOrAdd(name: "connection", value: keepAlive ? "keep-alive" : "close")
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
