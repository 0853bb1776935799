import NIOCore
import NIOTLS

/// Behind a CONNECT to a push host, the TLS handshake must end within the request timeout of the "200 Connection
/// Established", else the connection is closed. The request's own deadline left with the HTTP/1.1 handlers, and
/// a client that never sends its ClientHello, or sends it a byte at a time, would otherwise hold the connection
/// until the idle timeout or for ever. Stands right behind the TLS handler, the one place that sees the handshake end.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

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
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted = event as? TLSUserEvent {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
