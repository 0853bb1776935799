import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// One listening port that speaks HTTP/1.1 and HTTP/2 over plain TCP: a connection that opens with the HTTP/2
/// preface (RFC 9113 section 3.4, "prior knowledge", what `curl --http2-prior-knowledge` and APNs clients
/// configured for h2c send) gets SwiftNIO's HTTP/2 stack, any other gets its HTTP/1.1 stack. Each HTTP/2 stream
/// is turned into the same request parts as HTTP/1.1, so the endpoints see one kind of request.
public final class HTTPServer: Sendable {
    /// The largest body read: PushReader's input limit (256 times APNs' 4096 bytes). A longer body is drained,
    /// not kept, and its request marked `bodyTooLarge`, so memory stays bounded whatever a client sends.
    public static let maxBodyBytes = 1 << 20

    private let channel: any Channel
    public let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Listens on `host`:`port` (0: a free port, read back from `port`). With `tls`, every connection is TLS and
    /// ALPN picks the protocol (h2, else HTTP/1.1); without, the first bytes do.
    /// `idleTimeout`: a connection that sends and receives nothing for this long is closed, so idle and stalled
    /// clients do not hold sockets for ever.
    public static func start(
        host: String, port: Int, group: any EventLoopGroup, tls: NIOSSLContext? = nil, idleTimeout: TimeAmount = .minutes(5),
        responder: any RequestResponder
    ) async throws -> HTTPServer {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: idleTimeout))
                    let activity = ConnectionActivity()
                    try pipeline.addHandler(CloseWhenIdle(activity: activity))
                    guard let tls else {
                        try pipeline.addHandler(ProtocolDetector(responder: responder, activity: activity))
                        return
                    }
                    try pipeline.addHandler(NIOSSLServerHandler(context: tls))
                    try pipeline.addHandler(ApplicationProtocolNegotiationHandler { result, channel in
                        channel.eventLoop.makeCompletedFuture {
                            if case .negotiated("h2") = result {
                                try ProtocolDetector.configureHTTP2(channel, responder: responder, activity: activity)
                            } else {
                                try ProtocolDetector.configureHTTP1(channel, responder: responder, activity: activity)
                            }
                        }
                    })
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        return HTTPServer(channel: channel, port: channel.localAddress?.port ?? port)
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
    private var buffered: ByteBuffer?

    init(responder: any RequestResponder, activity: ConnectionActivity) {
        self.responder = responder
        self.activity = activity
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
                try Self.configureHTTP2(context.channel, responder: responder, activity: activity)
            } else {
                try Self.configureHTTP1(context.channel, responder: responder, activity: activity)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        buffered = nil
        context.fireChannelRead(wrapInboundOut(seen))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    static func configureHTTP1(_ channel: any Channel, responder: any RequestResponder, activity: ConnectionActivity) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(RequestHandler(responder: responder, protocolName: "HTTP/1.1", activity: activity))
    }

    static func configureHTTP2(_ channel: any Channel, responder: any RequestResponder, activity: ConnectionActivity) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            // APNs allows 1000 concurrent streams per connection by default (its SETTINGS frame says so).
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
        ]
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandlers([
                    HTTP2FramePayloadToHTTP1ServerCodec(),
                    RequestHandler(responder: responder, protocolName: "HTTP/2", activity: activity),
                ])
            }
        }
        try channel.pipeline.syncOperations.addHandler(CloseOnError())
    }
}

/// The requests of one connection being answered (an HTTP/2 connection's streams included): a connection is idle
/// only when none is. Touched only on the connection's event loop, which its streams share.
final class ConnectionActivity: @unchecked Sendable {
    var requestsInFlight = 0
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

/// Collects one request (head, body, end), has the responder answer it off the event loop, writes the answer.
/// HTTP/1.1 requests on one connection are answered in order (NIO's pipelining handler holds the next back).
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: any RequestResponder
    private let protocolName: String
    private let activity: ConnectionActivity
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// The streamed body being written on this connection or stream, told when it closes.
    private var stream: StreamWriter?

    init(responder: any RequestResponder, protocolName: String, activity: ConnectionActivity) {
        self.responder = responder
        self.protocolName = protocolName
        self.activity = activity
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
            tooLarge = false
        case .body(let chunk):
            guard !tooLarge else { return }
            if body.count + chunk.readableBytes > HTTPServer.maxBodyBytes {
                tooLarge = true
                body = []
            } else {
                body.append(contentsOf: chunk.readableBytesView)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            var request = ServerRequest(
                protocolName: protocolName, method: head.method.rawValue, target: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body)
            request.bodyTooLarge = tooLarge
            body = []
            let complete = request
            let keepAlive = head.isKeepAlive
            let version = head.version
            let responder = responder
            activity.requestsInFlight += 1
            let answer = context.eventLoop.makeFutureWithTask { await responder.respond(to: complete) }
            answer.assumeIsolated().whenSuccess { response in
                self.activity.requestsInFlight -= 1
                self.write(response, version: version, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// A request that cannot be parsed: NIO's error handler has answered 400 (HTTP/1.1) or the stream is reset
    /// (HTTP/2); the connection or stream is closed here, so a client sending garbage does not keep it open.
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
            // No length: HTTP/1.1 sends the body chunked, HTTP/2 in DATA frames, until either side closes.
            let status = HTTPResponseStatus(statusCode: response.status)
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            let writer = StreamWriter(context: context)
            stream = writer
            body.start(writer)
            return
        }
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if protocolName == "HTTP/1.1" {
            headers.replaceOrAdd(name: "connection", value: keepAlive ? "keep-alive" : "close")
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive, protocolName == "HTTP/1.1" {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
