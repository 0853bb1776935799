import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 stream: reads its request from the stream's HEADERS and DATA frames, has the responder answer it off
/// the event loop, and writes the answer as HEADERS (and DATA) frames. The request reaches the endpoints as an
/// HTTP/1.1 request does (`ServerRequest`), without going through HTTP/1's types: SwiftNIO's HTTP/2-to-HTTP/1
/// codec cost a conversion each way at every push, and added headers the client never sent (`transfer-encoding:
/// chunked` for a POST without `content-length`).
final class HTTP2StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let responder: any RequestResponder
    private let activity: ConnectionActivity
    /// The connection's answers, written together.
    private let answers: AnswerBatch
    private let connection: ConnectionContext
    /// The request must arrive whole within this time of the stream's opening.
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var head: (method: String, target: String, headers: [(name: String, value: String)])?
    private var body = RequestBody()
    /// The streamed body being written on this stream, told when it closes.
    private var stream: StreamWriter?

    init(responder: any RequestResponder, activity: ConnectionActivity, answers: AnswerBatch, connection: ConnectionContext, timeout: TimeAmount) {
        self.responder = responder
        self.activity = activity
        self.answers = answers
        self.connection = connection
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Closing the stream channel resets the stream (RST_STREAM CANCEL); the connection and its other streams go on.
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let block):
            if head == nil {
                guard let request = Self.requestHead(block.headers) else {
                    // No method, path or scheme, or no authority nor host: not a request anything here can answer.
                    context.close(promise: nil)
                    return
                }
                head = request
            }
            // A second HEADERS frame is the trailers: they end the request, and nothing in them is read.
            if block.endStream { requestEnded(context: context) }
        case .data(let frame):
            if case .byteBuffer(let chunk) = frame.data { body.append(chunk) }
            if frame.endStream { requestEnded(context: context) }
        default:
            break
        }
    }

    /// The request's method, target and headers (names lowercase, as HTTP/2 sends them), `host` first: the
    /// `:authority` pseudo-header, else the request's own `host` header (RFC 9113 section 8.3.1 allows either; aioapns
    /// sends `host` and no `:authority`, and APNs answers it). Nil without `:method`, `:path` or `:scheme`, or
    /// without either name for the host.
    static func requestHead(_ block: HPACKHeaders) -> (method: String, target: String, headers: [(name: String, value: String)])? {
        var method: String?
        var path: String?
        var scheme: String?
        var authority: String?
        var hasHost = false
        var headers: [(name: String, value: String)] = [("host", "")]
        headers.reserveCapacity(block.count)
        for (name, value, _) in block {
            if name.utf8.first == UInt8(ascii: ":") {
                switch name {
                case ":method": method = value
                case ":path": path = value
                case ":scheme": scheme = value
                case ":authority": authority = value
                default: break
                }
                continue
            }
            if name == "host" {
                guard !hasHost else { continue }
                hasHost = true
                if authority == nil { headers[0].value = value }
                continue
            }
            headers.append((name, value))
        }
        guard let method, let path, scheme != nil, authority != nil || hasHost else { return nil }
        if let authority { headers[0].value = authority }
        return (method, path, headers)
    }

    private func requestEnded(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        guard let head else { return }
        self.head = nil
        var request = ServerRequest(protocolName: "HTTP/2", method: head.method, target: head.target, lowercasedHeaders: head.headers, body: body.bytes)
        request.bodyTooLarge = body.tooLarge
        request.connection = connection
        body = RequestBody()
        activity.answer(request, with: responder, context: context) { response in
            self.answers.add { self.write(response, context: context) }
        }
    }

    /// An error on the stream (a frame SwiftNIO's HTTP/2 refuses): the stream is reset; the connection and its other
    /// streams go on.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stream?.closed()
        stream = nil
        context.fireChannelInactive()
    }

    private func write(_ response: ServerResponse, context: ChannelHandlerContext) {
        var headers = HPACKHeaders()
        headers.reserveCapacity(response.headers.count + 2)
        headers.add(name: ":status", value: String(response.status))
        for (name, value) in response.headers {
            // HTTP/2 field names are lowercase (RFC 9113 section 8.2.1). Not entered in HPACK's dynamic table (RFC
            // 7541 section 6.2.2): an answer's headers are mostly IDs that never come again (apns-id,
            // apns-unique-id), and each entry cost a search of the table and an eviction at every answer.
            headers.add(name: name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) ? name.lowercased() : name, value: value, indexing: .nonIndexable)
        }
        if let body = response.stream {
            // No length: DATA frames until the body ends or either side closes.
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
            let writer = StreamWriter(context: context, framing: .http2)
            stream = writer
            body.start(writer)
            return
        }
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        guard !response.body.isEmpty else {
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
            return
        }
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: response.body.count)
        buffer.writeBytes(response.body)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
    }
}

/// A request's body as it arrives, kept up to `HTTPServer.maxBodyBytes`: past that it is dropped and the request
/// marked too large, so memory stays bounded whatever a client sends.
struct RequestBody {
    private(set) var bytes: [UInt8] = []
    private(set) var tooLarge = false

    mutating func append(_ chunk: ByteBuffer) {
        guard !tooLarge else { return }
        if bytes.count + chunk.readableBytes > HTTPServer.maxBodyBytes {
            tooLarge = true
            bytes = []
        } else {
            bytes.append(contentsOf: chunk.readableBytesView)
        }
    }
}
