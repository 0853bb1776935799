import NIOCore
import NIOHTTP1
import NIOSSL

/// Sees each HTTP/1.1 request before the endpoints do. A CONNECT to a push host turns the connection into TLS with
/// the emulator behind it; a CONNECT elsewhere is refused or tunnelled. An absolute-form request (`GET
/// http://host/...`) follows the same rule: to a push host (or to this server) it goes on to the endpoints in
/// origin-form, elsewhere it is refused or forwarded. Every other request passes through untouched.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// An ordinary request, or one rewritten to origin-form: its parts go on to the endpoints.
        case passing
        /// A CONNECT whose end is awaited.
        case connecting(ProxyTarget, ProxyRoute)
        /// A request answered here; its body is dropped.
        case refusing(ProxyAnswer, keepAlive: Bool, version: HTTPVersion)
        /// A plain HTTP request to another host in tunnel mode: its body is collected, then it is forwarded.
        case forwarding(ProxyTarget, HTTPRequestHead, ByteBuffer)
        /// The connection is TLS or a tunnel now; nothing HTTP reaches this handler any more.
        case handedOver
    }

    private let service: ProxyService
    private let responder: any RequestResponder
    private let activity: ConnectionActivity
    private let requestTimeout: TimeAmount
    private let decoder: any RemovableChannelHandler
    /// The HTTP/1.1 handlers beside the decoder (the endpoints' included), removed at a hand-over.
    private let httpHandlers: [any RemovableChannelHandler]
    private var state = State.passing

    init(
        service: ProxyService, responder: any RequestResponder, activity: ConnectionActivity, requestTimeout: TimeAmount,
        decoder: any RemovableChannelHandler, httpHandlers: [any RemovableChannelHandler]
    ) {
        self.service = service
        self.responder = responder
        self.activity = activity
        self.requestTimeout = requestTimeout
        self.decoder = decoder
        self.httpHandlers = httpHandlers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (part, state) {
        case (.head(let head), _):
            let (next, onward) = decide(head, context: context)
            state = next
            if case .passing = next { context.fireChannelRead(wrapInboundOut(.head(onward))) }
        case (_, .passing):
            context.fireChannelRead(data)
        case (.body(var chunk), .forwarding(let target, let head, var body)):
            if body.readableBytes + chunk.readableBytes > HTTPServer.maxBodyBytes {
                state = .refusing(.bodyTooLarge, keepAlive: false, version: head.version)
            } else {
                body.writeBuffer(&chunk)
                state = .forwarding(target, head, body)
            }
        case (.body, _):
            return
        case (.end, .connecting(let target, let route)):
            state = .handedOver
            handOverConnect(to: target, route: route, context: context)
        case (.end, .refusing(let answer, let keepAlive, let version)):
            state = .passing
            refuse(answer, keepAlive: keepAlive, version: version, context: context)
        case (.end, .forwarding(let target, let head, let body)):
            guard service.claimTunnelSocket() else {
                state = .passing
                refuse(.tooManyConnections(limit: service.maxConnections), keepAlive: false, version: head.version, context: context)
                return
            }
            state = .handedOver
            let service = service
            handOver(context: context) { channel in
                try channel.pipeline.syncOperations.addHandler(TunnelEnd(
                    connectingTo: target, firstBytes: Self.serialize(head, body: body, allocator: channel.allocator), answersConnect: false,
                    release: service.sockets.release))
            }
        case (.end, .handedOver):
            return
        }
    }

    /// What to do with a request, from its head, and the head that goes on: an absolute-form target becomes
    /// origin-form with `host` from the URL, as the host itself would receive it.
    private func decide(_ head: HTTPRequestHead, context: ChannelHandlerContext) -> (State, HTTPRequestHead) {
        if head.method == .CONNECT {
            guard let target = ProxyTarget(authority: Substring(head.uri)) else {
                return (.refusing(.badTarget, keepAlive: false, version: head.version), head)
            }
            // A refused CONNECT closes the connection: the client must not send its tunnel's bytes as requests.
            switch ProxyRoute.forConnect(to: target, other: service.other) {
            case .deny: return (.refusing(.denied(target), keepAlive: false, version: head.version), head)
            case .notAPushPort: return (.refusing(.notAPushPort(target), keepAlive: false, version: head.version), head)
            case let route: return (.connecting(target, route), head)
            }
        }
        guard head.uri.prefix(7).lowercased() == "http://" else { return (.passing, head) }
        guard let (target, originForm) = ProxyTarget.absolute(head.uri) else {
            return (.refusing(.badTarget, keepAlive: head.isKeepAlive, version: head.version), head)
        }
        var onward = head
        onward.uri = originForm
        onward.headers.replaceOrAdd(name: "host", value: target.port == 80 ? target.host : target.authority)
        onward.headers.remove(name: "proxy-connection")
        onward.headers.remove(name: "proxy-authorization")
        if isThisServer(target, context: context) { return (.passing, onward) }
        switch ProxyRoute.forPlainHTTP(to: target, other: service.other) {
        case .emulate: return (.passing, onward)
        case .deny: return (.refusing(.denied(target), keepAlive: head.isKeepAlive, version: head.version), head)
        case .tunnel: return (.forwarding(target, onward, context.channel.allocator.buffer(capacity: 0)), onward)
        case .notAPushPort: return (.refusing(.notAPushPort(target), keepAlive: head.isKeepAlive, version: head.version), head)
        }
    }

    /// A client whose `http_proxy` also covers the emulator's own address sends its control API requests here.
    private func isThisServer(_ target: ProxyTarget, context: ChannelHandlerContext) -> Bool {
        ["127.0.0.1", "localhost", "::1"].contains(target.host) && context.channel.localAddress?.port == target.port
    }

    private func refuse(_ answer: ProxyAnswer, keepAlive: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        let body = Array(answer.body.utf8)
        let headers = HTTPHeaders([
            ("content-type", "text/plain; charset=utf-8"), ("content-length", String(body.count)), ("connection", keepAlive ? "keep-alive" : "close"),
        ])
        let status = HTTPResponseStatus.custom(code: UInt(answer.status), reasonPhrase: answer.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func handOverConnect(to target: ProxyTarget, route: ProxyRoute, context: ChannelHandlerContext) {
        switch route {
        case .emulate:
            let service = service
            let endpoints = EmulatedHost(host: target.port == 443 ? target.host : target.authority, endpoints: responder)
            let activity = activity
            let requestTimeout = requestTimeout
            handOver(context: context, established: true) { channel in
                // The request's own deadline left with the HTTP/1.1 handlers: the handshake's starts at the "200
                // Connection Established", so a client that never sends its ClientHello is closed in bounded time.
                try ProtocolDetector.configureTLS(
                    channel, context: try service.tlsContext(for: target.host), responder: endpoints, activity: activity,
                    requestTimeout: requestTimeout, handshakeTimeout: requestTimeout)
            }
        case .tunnel:
            guard service.claimTunnelSocket() else {
                refuse(.tooManyConnections(limit: service.maxConnections), keepAlive: false, version: .http1_1, context: context)
                return
            }
            let service = service
            handOver(context: context) { channel in
                try channel.pipeline.syncOperations.addHandler(
                    TunnelEnd(connectingTo: target, firstBytes: nil, answersConnect: true, release: service.sockets.release))
            }
        case .deny:
            refuse(.denied(target), keepAlive: false, version: .http1_1, context: context)
        case .notAPushPort:
            refuse(.notAPushPort(target), keepAlive: false, version: .http1_1, context: context)
        }
    }

    /// Takes the HTTP/1.1 handlers out and puts `install`'s in their place; with `established`, first tells the
    /// client its CONNECT succeeded. The decoder leaves last, handing on any bytes it holds past the request to
    /// the new handlers.
    private func handOver(context: ChannelHandlerContext, established: Bool = false, install: (any Channel) throws -> Void) {
        let pipeline = context.pipeline.syncOperations
        for handler in httpHandlers { pipeline.removeHandler(handler, promise: nil) }
        if established {
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: TunnelEnd.connectEstablished)), promise: nil)
        }
        do {
            try install(context.channel)
        } catch {
            context.close(promise: nil)
            return
        }
        pipeline.removeHandler(context: context, promise: nil)
        pipeline.removeHandler(decoder, promise: nil)
    }

    /// A request as HTTP/1.1 bytes in origin-form, for the host it is forwarded to; `connection: close`, so the
    /// end of the host's answer is the end of its connection.
    static func serialize(_ head: HTTPRequestHead, body: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var headers = head.headers
        headers.replaceOrAdd(name: "connection", value: "close")
        if body.readableBytes > 0 || headers.contains(name: "transfer-encoding") {
            headers.remove(name: "transfer-encoding")
            headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        }
        var text = "\(head.method.rawValue) \(head.uri) HTTP/1.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var buffer = allocator.buffer(capacity: text.utf8.count + body.readableBytes)
        buffer.writeString(text)
        var body = body
        buffer.writeBuffer(&body)
        return buffer
    }
}
