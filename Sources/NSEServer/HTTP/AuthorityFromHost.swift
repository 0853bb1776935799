import NIOCore
import NIOHPACK
import NIOHTTP2

/// An HTTP/2 request that names its host in a `host` header and sends no `:authority` gets `:authority` from
/// `host` before SwiftNIO's HTTP/1 codec reads it (the codec requires `:authority` and resets the stream without
/// it). RFC 9113 section 8.3.1 lets a request carry `host` instead, and aioapns does (its `connection.py` sends
/// `host` and no `:authority`), which APNs answers. A request with neither is left as it is, and reset.
final class AuthorityFromHost: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .headers(var head) = unwrapInboundIn(data), !head.headers.contains(name: ":authority"), let host = head.headers.first(name: "host") {
            head.headers.add(name: ":authority", value: host)
            context.fireChannelRead(wrapInboundOut(.headers(head)))
        } else {
            context.fireChannelRead(data)
        }
        // Only a stream's first frame can be its request head; what follows (data, trailers) passes untouched.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
