import NIOCore
import NIOHTTP2

/// An HTTP/2 answer ends its stream on its last frame, as APNs's do: a 200 on its HEADERS frame, an error on the
/// DATA frame that carries its JSON, never on the extra empty DATA frame that SwiftNIO's HTTP/1 codec sends for the
/// end of an HTTP/1-style response. Clients rely on it: aioapns parses every DATA frame it receives as JSON (its
/// `connection.py`, `on_data_received`), so an empty one fails its connection after each push. Each frame that does
/// not end the stream waits here until the next write or a flush; an empty DATA frame that ends the stream is
/// folded into it, anything else follows it unchanged.
final class EndStreamOnLastFrame: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if let waiting = held {
            held = nil
            if case .data(let end) = payload, end.endStream, end.data.readableBytes == 0, let ended = Self.endingStream(waiting.payload) {
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.cascade(to: waiting.promise)
                written.futureResult.cascade(to: promise)
                context.write(wrapOutboundOut(ended), promise: written)
                return
            }
            context.write(wrapOutboundOut(waiting.payload), promise: waiting.promise)
        }
        if Self.endingStream(payload) != nil {
            held = (payload, promise)
        } else {
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        release(context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        release(context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        held?.promise?.fail(ChannelError.ioOnClosedChannel)
        held = nil
    }

    private func release(_ context: ChannelHandlerContext) {
        guard let waiting = held else { return }
        held = nil
        context.write(wrapOutboundOut(waiting.payload), promise: waiting.promise)
    }

    /// `payload` with END_STREAM set, for a HEADERS or DATA frame that does not end its stream yet; nil for any other.
    private static func endingStream(_ payload: HTTP2Frame.FramePayload) -> HTTP2Frame.FramePayload? {
        switch payload {
        case .headers(var headers) where !headers.endStream:
            headers.endStream = true
            return .headers(headers)
        case .data(var data) where !data.endStream:
            data.endStream = true
            return .data(data)
        default:
            return nil
        }
    }
}
