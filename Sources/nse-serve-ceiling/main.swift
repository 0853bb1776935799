// The ceiling `make bench-serve` measures `nse serve` against: the same SwiftNIO stack on one loopback port
// (HTTP/2 with prior knowledge, else HTTP/1.1; each HTTP/2 stream turned into HTTP/1 parts by SwiftNIO's codec, the
// least code a SwiftNIO server needs, where `nse serve` reads a stream's frames itself),
// answering every request 200 with an empty body and checking nothing. Whatever `nse serve` costs beyond this
// is its own work: routing, the checks stage, the journal, the delivery pipeline.
//
//   nse-serve-ceiling [port]      (default 0: a free port; prints "listening on <port>")
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix

/// Picks HTTP/2 when the connection opens with its preface, else HTTP/1.1, then leaves the pipeline.
final class ProtocolSwitch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var seen: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if seen == nil { seen = bytes } else { seen?.writeBuffer(&bytes) }
        guard let buffered = seen else { return }
        let count = min(buffered.readableBytes, Self.preface.count)
        let isHTTP2 = buffered.readableBytesView.prefix(count).elementsEqual(Self.preface.prefix(count))
        if isHTTP2, count < Self.preface.count { return }
        do {
            let pipeline = context.channel.pipeline.syncOperations
            if isHTTP2 {
                var connection = NIOHTTP2Handler.ConnectionConfiguration()
                connection.initialSettings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000)]
                _ = try pipeline.configureHTTP2Pipeline(mode: .server, connectionConfiguration: connection, streamConfiguration: .init()) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), Answer200()])
                    }
                }
            } else {
                try pipeline.configureHTTPServerPipeline()
                try pipeline.addHandler(Answer200())
            }
        } catch {
            context.close(promise: nil)
            return
        }
        seen = nil
        context.fireChannelRead(wrapInboundOut(buffered))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Answers each request, once its end has arrived, 200 with no body.
final class Answer200: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var keepAlive = true
    private var version = HTTPVersion.http1_1

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            version = head.version
        case .body:
            break
        case .end:
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: "0")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if !keepAlive { context.close(promise: nil) }
        }
    }
}

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
// As many event loops as `nse serve` has (two).
let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ProtocolSwitch()) }
    }
    .bind(host: "127.0.0.1", port: port).get()
print("listening on \(channel.localAddress?.port ?? port)")
fflush(nil)  // every stream: the benchmark reads the port from a pipe
try await channel.closeFuture.get()
