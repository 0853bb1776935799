#if canImport(Glibc)
import Glibc
#endif

/// One client connection, served on its own thread: read a request, answer it, and again while the
/// connection is kept alive.
struct HTTPConnection {
    let socket: ConnectionSocket
    let server: ServerCore

    /// How long a response may wait for a client that does not read before the connection is dropped.
    static let sendTimeout: Duration = .seconds(60)

    /// Bytes received but not yet used: the start of the next request when the client pipelines.
    private var pending: [UInt8] = []

    init(socket: ConnectionSocket, server: ServerCore) {
        self.socket = socket
        self.server = server
    }

    /// Serves requests until the connection ends. Returns with the socket still open; the caller closes it.
    mutating func serve() {
        while true {
            let head: RequestHead
            do {
                guard let next = try readRequestHead() else { return }
                head = next
                try skipRequestBody(length: head.bodyLength)
            } catch let rejection as RequestRejection {
                let writer = ResponseWriter(socket: socket)
                writer.write(.page(status: rejection.status, message: rejection.reason), isHead: false, keepAlive: false)
                socket.closeGracefully()
                return
            } catch {
                // Timed out, hung up, or the server is stopping: nothing more to say on this connection.
                return
            }

            server.record(head.request)
            let response = server.handler(head.request)
            let writer = ResponseWriter(socket: socket)
            let outcome = writer.write(response, isHead: head.request.method == "HEAD", keepAlive: head.keepsAlive)
            switch outcome {
            case .keepAlive:
                continue
            case .close:
                socket.closeGracefully()
                return
            case .aborted:
                return
            }
        }
    }

    /// Reads up to the blank line that ends a request head; nil when the client closes between requests.
    private mutating func readRequestHead() throws -> RequestHead? {
        let deadline = ContinuousClock.now.advanced(by: server.idleTimeout)
        var searchedUpTo = 0
        while true {
            // RFC 9112 asks servers to ignore empty lines before a request line.
            while let first = pending.first, first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") {
                pending.removeFirst()
                searchedUpTo = 0
            }
            if let (headEnd, nextStart) = findEndOfHead(in: pending, from: searchedUpTo) {
                guard headEnd <= maximumRequestHeadSize else {
                    throw RequestRejection(status: 431, reason: "the request head is larger than \(maximumRequestHeadSize) bytes")
                }
                let head = try RequestHead(parsing: pending[0..<headEnd])
                pending.removeFirst(nextStart)
                return head
            }
            guard pending.count <= maximumRequestHeadSize else {
                throw RequestRejection(status: 431, reason: "the request head is larger than \(maximumRequestHeadSize) bytes")
            }
            searchedUpTo = max(0, pending.count - 3)
            do {
                try socket.receive(into: &pending, until: deadline)
            } catch {
                if error == .peerClosed && pending.isEmpty { return nil }
                throw error
            }
        }
    }

    /// Reads and discards a request body, keeping any bytes of a pipelined next request.
    private mutating func skipRequestBody(length: Int) throws {
        let deadline = ContinuousClock.now.advanced(by: server.idleTimeout)
        var remaining = length
        while remaining > 0 {
            if pending.isEmpty {
                try socket.receive(into: &pending, until: deadline)
            }
            let used = min(remaining, pending.count)
            pending.removeFirst(used)
            remaining -= used
        }
    }
}

/// Where the head ends: the index of the line break that ends the last header line (the head's length)
/// and the index just past the blank line. Accepts CRLF and bare LF line endings.
func findEndOfHead(in bytes: [UInt8], from start: Int) -> (headEnd: Int, nextStart: Int)? {
    let newline = UInt8(ascii: "\n")
    var index = start
    while index < bytes.count {
        if bytes[index] == newline {
            if index + 1 < bytes.count && bytes[index + 1] == newline {
                return (index, index + 2)
            }
            if index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "\r") && bytes[index + 2] == newline {
                return (index, index + 3)
            }
        }
        index += 1
    }
    return nil
}
