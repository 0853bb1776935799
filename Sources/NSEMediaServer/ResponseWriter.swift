#if canImport(Glibc)
import Glibc
#endif

/// Writes one `ServedResponse` to a connection, with the framing its body calls for.
struct ResponseWriter {
    let socket: ConnectionSocket

    /// What the connection does after the response.
    enum Outcome {
        /// The response was framed and complete: read the next request.
        case keepAlive
        /// The response ends the connection (as declared, or as the body's hostility requires).
        case close
        /// The client hung up, the server is stopping, or sending failed: drop the connection at once.
        case aborted
    }

    /// A body ready to send: files opened, lengths known.
    private enum PreparedBody {
        /// `sendCount` bytes of `source` (file then zeros), declaring `declared`; the connection closes
        /// after if `closeAfter`, or whenever it sent less than it declared.
        case fixed(source: BodySource, declared: Int, sendCount: Int, chunk: Int, interval: Duration, closeAfter: Bool)
        case endless(UInt8)
        case stall
    }

    @discardableResult
    func write(_ response: ServedResponse, isHead: Bool, keepAlive: Bool) -> Outcome {
        do {
            try socket.pause(for: response.delayBeforeHeaders)
        } catch {
            return .aborted
        }

        var response = response
        var preparation = prepare(response.body)
        if case .replacedBy(let page) = preparation {
            response = page
            preparation = prepare(page.body)
        }
        guard case .ready(let body) = preparation else { preconditionFailure("error pages are in-memory bytes") }
        defer { if case .fixed(let source, _, _, _, _, _) = body { source.close() } }

        // 1xx, 204 and 304 responses never carry a body (RFC 9110), whatever the handler supplied.
        let bodyless = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
        var closes = !keepAlive
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(for: response.status))\r\n"
        for (name, value) in response.headers where isSendable(name: name, value: value) {
            head += "\(name): \(value)\r\n"
        }
        switch body {
        case .fixed(_, let declared, let sendCount, _, _, let closeAfter):
            if !bodyless { head += "Content-Length: \(declared)\r\n" }
            if !bodyless && (closeAfter || sendCount < declared) { closes = true }
        case .endless:
            closes = true
        case .stall:
            if !bodyless { head += "Content-Length: 1000\r\n" }
            closes = true
        }
        if closes { head += "Connection: close\r\n" }
        head += "\r\n"

        let deadline = ContinuousClock.now.advanced(by: HTTPConnection.sendTimeout)
        do {
            try socket.send(Array(head.utf8), until: deadline)
            if !isHead && !bodyless {
                try send(body)
            }
        } catch {
            return .aborted
        }
        return closes ? .close : .keepAlive
    }

    private func send(_ body: PreparedBody) throws(SocketEnd) {
        switch body {
        case .fixed(let source, _, let sendCount, let chunk, let interval, _):
            // The part of a body that comes from a file goes out with sendfile(2), paced or not: pread and send
            // copied every byte twice through this process, CPU taken from the program under test on the same
            // cores (the latency benchmark's 400 paced bodies, the CPU-bound batches over --media).
            try withBrokenPipeBlocked { () throws(SocketEnd) in
                var offset = 0
                var buffer: [UInt8] = []
                while offset < sendCount {
                    if offset > 0 { try socket.pause(for: interval) }
                    if case .file(let fd, let size) = source, offset < size {
                        let count = min(interval == .zero ? size : chunk, size - offset, sendCount - offset)
                        try socket.sendFile(fd, from: offset, count: count, timeout: HTTPConnection.sendTimeout)
                        offset += count
                        continue
                    }
                    let count = min(chunk, sendCount - offset)
                    if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
                    source.fill(at: offset, count: count, into: &buffer)
                    try socket.send(buffer, count: count, until: ContinuousClock.now.advanced(by: HTTPConnection.sendTimeout))
                    offset += count
                }
            }
        case .endless(let byte):
            let chunk = [UInt8](repeating: byte, count: 65_536)
            while true {
                try socket.send(chunk, until: ContinuousClock.now.advanced(by: HTTPConnection.sendTimeout))
            }
        case .stall:
            // Send nothing; only notice the client hanging up (or the server stopping).
            socket.drainUntilClosed(until: nil)
        }
    }

    private enum Preparation {
        case ready(PreparedBody)
        /// The body's file cannot be served: send this error page instead of the whole response.
        case replacedBy(ServedResponse)
    }

    /// Opens files and fixes lengths; a file that cannot be opened yields an error page instead.
    private func prepare(_ body: ServedResponse.Body) -> Preparation {
        switch body {
        case .bytes(let bytes):
            return .ready(.fixed(source: .bytes(bytes), declared: bytes.count, sendCount: bytes.count,
                                   chunk: 65_536, interval: .zero, closeAfter: false))
        case .trickle(let bytes, let bytesPerChunk, let interval):
            return .ready(.fixed(source: .bytes(bytes), declared: bytes.count, sendCount: bytes.count,
                                   chunk: max(1, bytesPerChunk), interval: interval, closeAfter: false))
        case .truncated(let bytes, let declaredLength):
            let declared = max(0, declaredLength)
            return .ready(.fixed(source: .bytes(bytes), declared: declared, sendCount: min(bytes.count, declared),
                                   chunk: 65_536, interval: .zero, closeAfter: true))
        case .endless(let byte):
            return .ready(.endless(byte))
        case .stall:
            return .ready(.stall)
        case .file(let path):
            return prepare(.fileStream(ServedResponse.FileStream(path: path)))
        case .fileStream(let stream):
            var source = BodySource.zeros
            var fileSize = 0
            if let path = stream.path {
                switch BodySource.open(path) {
                case .opened(let opened, let size):
                    source = opened
                    fileSize = size
                case .unservable(let page):
                    return .replacedBy(page)
                }
            }
            let declared = max(0, stream.length ?? fileSize)
            let sendCount = min(declared, max(0, stream.sendOnly ?? declared))
            return .ready(.fixed(source: source, declared: declared, sendCount: sendCount,
                                   chunk: max(1, stream.bytesPerChunk), interval: stream.interval,
                                   closeAfter: false))
        }
    }

}

/// Header fields the handler may not set (the server frames the body) or that would split the response.
private func isSendable(name: String, value: String) -> Bool {
    let reserved = ["content-length", "connection", "transfer-encoding"]
    guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte), !reserved.contains(name.lowercased()) else { return false }
    return !value.utf8.contains { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") || $0 == 0 }
}

/// Where body bytes come from: memory, or a file followed by zero bytes.
enum BodySource {
    case bytes([UInt8])
    case file(fd: Int32, size: Int)
    /// Only zero bytes (a padded body without a file).
    case zeros

    enum Opening {
        case opened(BodySource, size: Int)
        /// The page explaining why the file cannot be served.
        case unservable(ServedResponse)
    }

    /// Opens a regular file for streaming.
    static func open(_ path: String) -> Opening {
        // O_NONBLOCK: a FIFO put in place of a checked file cannot hold the server in open(2).
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return .unservable(.notFound)
            case EACCES, EPERM: return .unservable(.page(status: 403, message: "The file exists but the server may not read it."))
            case let code: return .unservable(.page(status: 500, message: "The file could not be opened (errno \(code))."))
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            return .unservable(.notFound)
        }
        return .opened(.file(fd: fd, size: Int(info.st_size)), size: Int(info.st_size))
    }

    /// Fills `buffer[0..<count]` with the bytes at `offset` that do not come from a file: the in-memory body's,
    /// or zeros (a file's padding past its end; the file's own bytes go out with sendfile).
    func fill(at offset: Int, count: Int, into buffer: inout [UInt8]) {
        switch self {
        case .bytes(let bytes):
            let fromBytes = max(0, min(count, bytes.count - offset))
            buffer.replaceSubrange(0..<fromBytes, with: bytes[offset..<(offset + fromBytes)])
            if fromBytes < count { buffer.replaceSubrange(fromBytes..<count, with: repeatElement(0, count: count - fromBytes)) }
        case .zeros, .file:
            buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        }
    }

    func close() {
        if case .file(let fd, _) = self { Glibc.close(fd) }
    }
}
