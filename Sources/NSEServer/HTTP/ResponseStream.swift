import NIOCore
import NIOHTTP1
import NIOHTTP2

/// A body written over time (the control API's events stream, a long list of notifications) instead of all at
/// once: the server sends the head without a length (HTTP/1.1 chunked, HTTP/2 DATA frames), then hands `start`
/// the writer.
public protocol ResponseStream: Sendable {
    func start(_ writer: StreamWriter)
}

/// Writes a streamed body to one HTTP/1.1 connection or HTTP/2 stream, from any thread. A reader that does not
/// keep up is dropped: when more than `maxBuffered` bytes wait to be taken by the socket (or by HTTP/2 flow
/// control), the connection (HTTP/1.1) or the stream (HTTP/2) is closed, so a slow reader costs bounded memory.
public final class StreamWriter: Sendable {
    public static let maxBuffered = 1 << 20

    /// How the body's parts are written: HTTP/1.1's parts (chunks, then the last chunk), or HTTP/2's DATA frames
    /// (the last with END_STREAM).
    enum Framing {
        case http1
        case http2
    }

    private final class State {
        let context: ChannelHandlerContext
        let framing: Framing
        var buffered = 0
        var closed = false
        /// HTTP/1.1 without keep-alive: the connection closes once the body has ended.
        let closesAfterEnd: Bool
        var onClose: [@Sendable () -> Void] = []

        init(context: ChannelHandlerContext, framing: Framing, closesAfterEnd: Bool) {
            self.context = context
            self.framing = framing
            self.closesAfterEnd = closesAfterEnd
        }

        /// One part of the body, or its end (nil).
        func part(_ buffer: ByteBuffer?) -> NIOAny {
            switch framing {
            case .http1:
                return NIOAny(buffer.map { HTTPServerResponsePart.body(.byteBuffer($0)) } ?? .end(nil))
            case .http2:
                let end = buffer == nil
                return NIOAny(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer ?? context.channel.allocator.buffer(capacity: 0)), endStream: end)))
            }
        }
    }

    private let eventLoop: any EventLoop
    private let state: NIOLoopBoundBox<State>

    /// Made on the event loop, by the handler that wrote the head.
    init(context: ChannelHandlerContext, framing: Framing, closesAfterEnd: Bool = false) {
        eventLoop = context.eventLoop
        state = NIOLoopBoundBox(State(context: context, framing: framing, closesAfterEnd: closesAfterEnd), eventLoop: context.eventLoop)
    }

    /// Queues `bytes`; closes the stream when the reader is too far behind.
    public func write(_ bytes: [UInt8]) {
        eventLoop.execute { [self] in _ = send(bytes) }
    }

    /// Writes `bytes` and returns once the socket took them (a catch-up of many events paces itself so);
    /// false when the stream is closed.
    public func writeAndWait(_ bytes: [UInt8]) async -> Bool {
        let written = eventLoop.flatSubmit { [self] () -> EventLoopFuture<Void> in
            guard let future = send(bytes) else { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            return future
        }
        do {
            try await written.get()
            return true
        } catch {
            return false
        }
    }

    /// Runs `handler` once the stream is closed, by either side (at once when it already is).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        eventLoop.execute { [self] in
            if state.value.closed {
                handler()
            } else {
                state.value.onClose.append(handler)
            }
        }
    }

    /// Ends the body (HTTP/1.1's last chunk, HTTP/2's END_STREAM) after what was written: the answer is
    /// complete, and an HTTP/1.1 connection with keep-alive takes its next request. Nothing is written after it.
    public func finish() {
        eventLoop.execute { [self] in
            let state = state.value
            guard !state.closed else { return }
            let ended = state.context.writeAndFlush(state.part(nil))
            if state.closesAfterEnd {
                ended.assumeIsolated().whenComplete { _ in state.context.close(promise: nil) }
            }
            closed()
        }
    }

    public func close() {
        eventLoop.execute { [self] in
            let state = state.value
            guard !state.closed else { return }
            state.context.close(promise: nil)
        }
    }

    /// The connection or stream went away: called by its handler, on the event loop.
    func closed() {
        let state = state.value
        guard !state.closed else { return }
        state.closed = true
        let handlers = state.onClose
        state.onClose = []
        for handler in handlers { handler() }
    }

    private func send(_ bytes: [UInt8]) -> EventLoopFuture<Void>? {
        let state = state.value
        guard !state.closed else { return nil }
        guard state.buffered + bytes.count <= Self.maxBuffered else {
            state.context.close(promise: nil)
            return nil
        }
        state.buffered += bytes.count
        var buffer = state.context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let future = state.context.writeAndFlush(state.part(buffer))
        future.assumeIsolated().whenComplete { [self] _ in self.state.value.buffered -= bytes.count }
        return future
    }
}
