#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
@testable import NSEMediaServer

/// A minimal blocking HTTP client over a raw socket, so tests control every byte and can misbehave.
///
/// Every read waits at most its timeout; nothing here can hang a test.
final class RawHTTPClient {
    /// The default timeout of a read: a guard against a hang, not a guess at how long the server takes. A read
    /// returns as soon as its bytes (or the close) arrive, and on a starved machine a server thread can wait
    /// seconds for a core. Under the suites' one-minute limit.
    static let hangGuard: Duration = .seconds(50)

    enum Failure: Error, Equatable {
        case connectFailed(Int32)
        case timedOut
        case closedEarly
        case malformedResponse
        case sendFailed(Int32)
    }

    struct Response {
        var status: Int
        /// Lowercased names.
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    /// Bytes received and not yet consumed.
    private var pending: [UInt8] = []
    private var isClosed = false

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connectFailed(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            // deinit runs after a throwing initialiser too: mark the descriptor closed, or deinit closes its number
            // again, by then perhaps another test's socket (a server's listener, whose connects were then refused).
            Glibc.close(fd)
            isClosed = true
            throw Failure.connectFailed(code)
        }
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure.sendFailed(errno) }
            offset += sent
        }
    }

    /// Sends a GET (or another method) with a Host header and any extra header lines.
    func request(_ method: String = "GET", _ target: String, extraHeaders: [String] = []) throws {
        let lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"] + extraHeaders
        try send(lines.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// Reads a status line and headers.
    func readHead(timeout: Duration = RawHTTPClient.hangGuard) throws -> (status: Int, headers: [String: String]) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let end = find([13, 10, 13, 10], in: pending) {
                let head = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
                guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                    throw Failure.malformedResponse
                }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { throw Failure.malformedResponse }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (status, headers)
            }
            guard try receive(until: deadline) else { throw Failure.closedEarly }
        }
    }

    /// Reads one whole response framed by Content-Length, or by the connection closing when it has none.
    func readResponse(isHead: Bool = false, timeout: Duration = RawHTTPClient.hangGuard) throws -> Response {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let (status, headers) = try readHead(timeout: timeout)
        if isHead || status == 204 || status == 304 {
            return Response(status: status, headers: headers, body: [])
        }
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            let body = try readBytes(length, until: deadline)
            return Response(status: status, headers: headers, body: body)
        }
        return Response(status: status, headers: headers, body: try readUntilClosed(until: deadline))
    }

    /// Reads exactly `count` bytes.
    func readBytes(_ count: Int, timeout: Duration = RawHTTPClient.hangGuard) throws -> [UInt8] {
        try readBytes(count, until: ContinuousClock.now.advanced(by: timeout))
    }

    private func readBytes(_ count: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        while pending.count < count {
            guard try receive(until: deadline) else { throw Failure.closedEarly }
        }
        let bytes = Array(pending[0..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// Reads until the server closes the connection; throws `timedOut` if it does not within the timeout.
    func readUntilClosed(timeout: Duration = RawHTTPClient.hangGuard) throws -> [UInt8] {
        try readUntilClosed(until: ContinuousClock.now.advanced(by: timeout))
    }

    private func readUntilClosed(until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        while try receive(until: deadline) {}
        defer { pending.removeAll() }
        return pending
    }

    /// Reads whatever arrives for `duration` (or until the server closes), without failing. To wait for the close,
    /// pass `hangGuard`: the read ends as soon as it comes.
    func readFor(_ duration: Duration) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now.advanced(by: duration)
        var closed = false
        do {
            while try receive(until: deadline) {}
            closed = true
        } catch {}
        defer { pending.removeAll() }
        return (pending, closed)
    }

    /// Appends what arrives to `pending`; false when the server closed the connection.
    private func receive(until deadline: ContinuousClock.Instant) throws -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw Failure.timedOut }
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready > 0 { break }
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            pending.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw Failure.closedEarly
    }
}

private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if Array(haystack[start..<(start + needle.count)]) == needle { return start }
    }
    return nil
}

/// A scratch directory removed when the test ends.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "nse-media-server-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file at `relativePath`, creating folders as needed; returns its full path.
    @discardableResult
    func write(_ relativePath: String, _ bytes: [UInt8]) throws -> String {
        let full = path + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    @discardableResult
    func write(_ relativePath: String, _ text: String) throws -> String {
        try write(relativePath, Array(text.utf8))
    }
}

/// How long `body` takes.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let start = ContinuousClock.now
    try body()
    return ContinuousClock.now - start
}

/// A value shared with a handler thread, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let guarded: Mutex<Value>

    init(_ value: Value) { guarded = Mutex(value) }

    var value: Value {
        get { guarded.withLock { $0 } }
        set { guarded.withLock { $0 = newValue } }
    }
}
