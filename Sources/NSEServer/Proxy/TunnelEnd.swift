import NIOCore
import NIOPosix

/// One end of a byte tunnel (`--proxy-other tunnel`): what one end reads, the other writes, unchanged. The client's
/// end connects to the host first, holding what the client sends meanwhile; each end reads only while the other
/// can write, so a slow side holds the fast one back instead of filling memory.
final class TunnelEnd: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The answer to a CONNECT once the tunnel stands (no headers: RFC 9110 section 9.3.6 forbids a body).
    static let connectEstablished = "HTTP/1.1 200 Connection Established\r\n\r\n"
    /// What the client's end holds before the host's end exists; past it the end stops reading.
    static let maxPendingBytes = 1 << 20
    static let connectTimeout = TimeAmount.seconds(10)

    private struct Connect {
        var target: ProxyTarget
        /// Sent to the host before anything the client sends (a forwarded plain HTTP request).
        var firstBytes: ByteBuffer?
        /// Tell the client "200 Connection Established" once connected (a CONNECT), else nothing.
        var answersConnect: Bool
        /// Gives back the outgoing socket's place in the port's count, once it is closed or failed to open.
        var release: @Sendable () -> Void
    }

    private var connect: Connect?
    private var partner: TunnelEnd?
    private var context: ChannelHandlerContext?
    private var pending: [ByteBuffer] = []
    private var pendingBytes = 0
    /// A read the channel asked for and this end held back.
    private var readHeld = false

    /// The client's end: it connects to `target` when added to the pipeline.
    init(connectingTo target: ProxyTarget, firstBytes: ByteBuffer?, answersConnect: Bool, release: @escaping @Sendable () -> Void) {
        connect = Connect(target: target, firstBytes: firstBytes, answersConnect: answersConnect, release: release)
    }

    /// The host's end.
    private init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard let connect else { return }
        let target = connect.target
        let release = connect.release
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(Self.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(TunnelEnd()) }
            }
            .connect(host: target.host, port: target.port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let upstream): upstream.closeFuture.whenComplete { _ in release() }
                case .failure: release()
                }
                self.connected(result)
            }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func connected(_ result: Result<any Channel, any Error>) {
        guard let context, let connect else {
            if case .success(let upstream) = result { upstream.close(promise: nil) }
            return
        }
        self.connect = nil
        switch result {
        case .failure(let error):
            let answer = ProxyAnswer.unreachable(connect.target, String(describing: error))
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer.rawResponse))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .success(let upstream):
            guard let host = try? upstream.pipeline.syncOperations.handler(type: TunnelEnd.self) else {
                upstream.close(promise: nil)
                context.close(promise: nil)
                return
            }
            if connect.answersConnect {
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: Self.connectEstablished)), promise: nil)
            }
            if let first = connect.firstBytes { host.send(first) }
            partner = host
            host.partner = self
            for bytes in pending { host.send(bytes) }
            pending = []
            pendingBytes = 0
            host.context?.flush()
            resumeReading()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if let partner {
            partner.send(bytes)
        } else {
            pending.append(bytes)
            pendingBytes += bytes.readableBytes
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func read(context: ChannelHandlerContext) {
        let canGoOn = partner.map { $0.context?.channel.isWritable ?? false } ?? (pendingBytes < Self.maxPendingBytes)
        if canGoOn {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.resumeReading() }
        context.fireChannelWritabilityChanged()
    }

    /// One side closed: the other writes what it holds, then closes too.
    func channelInactive(context: ChannelHandlerContext) {
        let other = partner
        partner = nil
        other?.partner = nil
        other?.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ bytes: ByteBuffer) {
        guard let context else { return }
        context.write(wrapOutboundOut(bytes), promise: nil)
    }

    private func resumeReading() {
        guard readHeld, let context else { return }
        readHeld = false
        context.read()
    }

    private func finish() {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
