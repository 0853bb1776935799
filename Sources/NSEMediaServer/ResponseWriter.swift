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
            var offset = 0
            // An unpaced file goes out with sendfile(2), without passing through this process: pread and send
            // copied every byte twice, which on a CPU-bound batch over --media was CPU the emulator lacked.
            if interval == .zero, case .file(let fd, let size) = source {
                offset = min(sendCount, size)
                try socket.sendFile(fd, count: offset, timeout: HTTPConnection.sendTimeout)
            }
            guard offset < sendCount else { return }
            var buffer = [UInt8](repeating: 0, count: max(1, min(chunk, sendCount - offset)))
            while offset < sendCount {
                if offset > 0 { try socket.pause(for: interval) }
                let count = min(buffer.count, sendCount - offset)
                guard source.read(at: offset, count: count, into: &buffer) else {
                    // The file shrank under us: the declared length can no longer be honoured.
                    throw .failed(EIO)
                }
                try socket.send(buffer, count: count, until: ContinuousClock.now.advanced(by: HTTPConnection.sendTimeout))
                offset += count
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
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
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

    /// Fills `buffer[0..<count]` with the bytes at `offset`: the file's, then zeros past its end.
    /// False if the file ends before its size said it would.
    func read(at offset: Int, count: Int, into buffer: inout [UInt8]) -> Bool {
        switch self {
        case .bytes(let bytes):
            let fromBytes = max(0, min(count, bytes.count - offset))
            buffer.replaceSubrange(0..<fromBytes, with: bytes[offset..<(offset + fromBytes)])
            if fromBytes < count { buffer.replaceSubrange(fromBytes..<count, with: repeatElement(0, count: count - fromBytes)) }
            return true
        case .zeros:
            buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            return true
        case .file(let fd, let size):
            let fromFile = max(0, min(count, size - offset))
            var filled = 0
            while filled < fromFile {
                let got = buffer.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress! + filled, fromFile - filled, off_t(offset + filled))
                }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { return false }
                filled += got
            }
            if filled < count {
                buffer.withUnsafeMutableBufferPointer { target in
                    for index in filled..<count { target[index] = 0 }
                }
            }
            return true
        }
    }

    func close() {
        if case .file(let fd, _) = self { Glibc.close(fd) }
    }
}
