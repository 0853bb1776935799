#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NSEConcurrency
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 for tests and for serving sample media over loopback.
///
/// One job accepts connections and one job serves each connection, all on the process's `BlockingExecutor`
/// (threads reused, a new one whenever all are busy) so that nothing ever blocks Swift's cooperative pool and
/// a slow connection holds up no other. The handler runs on the connection's job.
///
/// ```swift
/// let server = try LoopbackHTTPServer { request in
///     request.path == "/cat.png" ? .ok(pngBytes, contentType: "image/png") : .notFound
/// }
/// defer { server.stop() }
/// fetch(server.baseURL + "/cat.png")
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// The state the threads share. The threads hold the core, not the server, so the server's deinit can
    /// still run (and stop everything) while they are alive.
    private let core: ServerCore

    public let port: UInt16

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in the order they arrived (malformed ones are not recorded).
    public var requests: [HTTPRequest] { core.recordedRequests }

    /// Connections accepted so far: fewer than requests when clients reuse their connections.
    public var connectionsAccepted: Int { core.connectionsAccepted }

    /// Why the server stopped accepting connections before `stop()`, if it did (a system call failing in a way it
    /// cannot wait out). It then stops listening too: clients are refused at once rather than queued for ever.
    public var acceptFailure: String? { core.acceptFailure }

    /// Binds 127.0.0.1 (IPv4 explicitly) and starts serving at once.
    ///
    /// - Parameter port: the port to bind; 0 (the default) for an ephemeral one the system picks.
    /// - Parameter idleTimeout: how long a connection may sit without sending a complete request
    ///   (an idle keep-alive connection, or a client that stops halfway through its headers).
    public init(
        port: UInt16 = 0,
        idleTimeout: Duration = .seconds(5),
        handler: @escaping @Sendable (HTTPRequest) -> ServedResponse
    ) throws {
        let listener = try Listener.bindLoopback(port: port)
        core = ServerCore(listener: listener, idleTimeout: idleTimeout, handler: handler)
        self.port = listener.port
        core.startAccepting()
    }

    /// Closes the listener and every open connection, then waits for the threads to end.
    ///
    /// Sockets are shut down, so stalled, endless and trickling bodies and idle keep-alive connections end
    /// at once. Idempotent; `deinit` calls it. Safe to call from inside the handler.
    public func stop() {
        core.stop()
    }

    deinit {
        core.stop()
    }
}

/// A server error while setting up the listening socket.
public struct LoopbackHTTPServerError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno)); the loopback media server cannot start"
    }
}

/// The listening socket and the stop pipe, created together so a failure leaks neither.
struct Listener: Sendable {
    let fd: Int32
    let port: UInt16
    /// Written once by stop() and never drained: readable forever after, waking every poll that watches it.
    let stopRead: Int32
    let stopWrite: Int32

    static func bindLoopback(port: UInt16) throws(LoopbackHTTPServerError) -> Listener {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        // Child processes (the CLI may run one) must not inherit the server's sockets.
        guard fd >= 0 else { throw LoopbackHTTPServerError(operation: "socket", errno: errno) }
        func fail(_ operation: String) -> LoopbackHTTPServerError {
            let error = LoopbackHTTPServerError(operation: operation, errno: errno)
            close(fd)
            return error
        }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw fail("bind 127.0.0.1") }
        // As deep a queue of connections not yet accepted as the system allows (net.core.somaxconn caps it): a batch
        // connects hundreds of pushes at once, and a connection the queue has no room for is dropped, its client
        // trying again only a second later. With 128, 400 pushes starting together waited that second.
        guard listen(fd, SOMAXCONN) == 0 else { throw fail("listen") }

        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw fail("getsockname") }

        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw fail("pipe") }
        setCloseOnExec(pipeEnds[0])
        setCloseOnExec(pipeEnds[1])
        return Listener(fd: fd, port: UInt16(bigEndian: address.sin_port), stopRead: pipeEnds[0], stopWrite: pipeEnds[1])
    }
}

/// The server's shared state and its threads' life cycle.
final class ServerCore: Sendable {
    private enum Phase { case running, stopping, stopped }

    private struct State {
        var phase = Phase.running
        /// Open connections' sockets, so stop() can shut them down; a connection removes itself before closing.
        var connections: [UInt64: Int32] = [:]
        /// Jobs started and not yet finished, with their thread once they have run (for stop() from a handler).
        var liveThreads: [UInt64: pthread_t?] = [:]
        /// stop() calls waiting for every job but their own to end.
        var stopWaiters: [(me: pthread_t, done: Latch<Bool>)] = []
        /// Connections accepted since the server started.
        var accepted = 0
        /// Why the accept loop ended on its own, if it did.
        var acceptFailure: String?
        var nextID: UInt64 = 1
        var requests: [HTTPRequest] = []
        var descriptorsReleased = false
    }

    private static let acceptThreadID: UInt64 = 0

    let listener: Listener
    let idleTimeout: Duration
    let handler: @Sendable (HTTPRequest) -> ServedResponse
    private let state = Mutex(State())

    init(listener: Listener, idleTimeout: Duration, handler: @escaping @Sendable (HTTPRequest) -> ServedResponse) {
        self.listener = listener
        self.idleTimeout = idleTimeout
        self.handler = handler
    }

    var recordedRequests: [HTTPRequest] { state.withLock { $0.requests } }

    var connectionsAccepted: Int { state.withLock { $0.accepted } }

    var acceptFailure: String? { state.withLock { $0.acceptFailure } }

    func record(_ request: HTTPRequest) {
        state.withLock { $0.requests.append(request) }
    }

    func startAccepting() {
        state.withLock { $0.liveThreads[Self.acceptThreadID] = .some(nil) }
        BlockingExecutor.shared.execute("nse-media-server accept :\(listener.port)") { [self] in
            threadStarted(Self.acceptThreadID)
            acceptLoop()
            threadEnded(Self.acceptThreadID)
        }
    }

    private func acceptLoop() {
        var fds = [
            pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: listener.stopRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return stopAccepting(because: "poll", errno)
            }
            if fds[1].revents != 0 {
                // stop() marks the server stopping before it writes to the pipe; anything else woke it.
                if state.withLock({ $0.phase != .running }) { return }
                return stopAccepting(because: "poll of the stop pipe (events \(fds[1].revents))", EBADF)
            }
            // accept4 and pipe2 need _GNU_SOURCE, which Swift's Glibc module does not import: set the flags after.
            let fd = accept(listener.fd, nil, nil)
            if fd < 0 {
                switch errno {
                // accept(2): Linux passes a new connection's pending network errors to accept; retry as for EAGAIN.
                case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO, EPERM,
                     ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: back off briefly instead of spinning, waking for stop().
                    let socket = ConnectionSocket(fd: -1, stopSignal: listener.stopRead)
                    if (try? socket.pause(for: .milliseconds(50))) == nil { return }
                    continue
                case let code:
                    return stopAccepting(because: "accept", code)
                }
            }
            setCloseOnExec(fd)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var on: Int32 = 1
            // Trickled chunks must leave at once rather than wait on Nagle plus a delayed ACK.
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            adopt(fd)
        }
    }

    /// The accept loop cannot go on: stop listening, so clients are refused at once instead of waiting in the
    /// queue for an answer that never comes, and say why, on stderr and in `acceptFailure`.
    private func stopAccepting(because operation: String, _ code: Int32) {
        let reason = "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        let report: Bool = state.withLock { state in
            guard state.phase == .running else { return false }
            state.acceptFailure = reason
            // Under the lock: stop() cannot have released the descriptor meanwhile.
            shutdown(listener.fd, Int32(SHUT_RDWR))
            return true
        }
        guard report else { return }
        FileHandle.standardError.write(Data("nse media server on 127.0.0.1:\(listener.port) stopped accepting connections: \(reason)\n".utf8))
    }

    /// Registers a new connection and starts its thread, unless the server has begun stopping.
    private func adopt(_ fd: Int32) {
        let id: UInt64? = state.withLock { state in
            guard state.phase == .running else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.connections[id] = fd
            state.liveThreads[id] = .some(nil)
            state.accepted += 1
            return id
        }
        guard let id else {
            close(fd)
            return
        }
        let socket = ConnectionSocket(fd: fd, stopSignal: listener.stopRead)
        BlockingExecutor.shared.execute("nse-media-server connection") { [self] in
            threadStarted(id)
            var connection = HTTPConnection(socket: socket, server: self)
            connection.serve()
            state.withLock { _ = $0.connections.removeValue(forKey: id) }
            close(fd)
            threadEnded(id)
        }
    }

    private func threadStarted(_ id: UInt64) {
        let me = pthread_self()
        state.withLock { $0.liveThreads[id] = .some(me) }
    }

    private func threadEnded(_ id: UInt64) {
        let satisfied: [Latch<Bool>] = state.withLock { state in
            _ = state.liveThreads.removeValue(forKey: id)
            let live = state.liveThreads
            let (done, waiting) = state.stopWaiters.reduce(into: ([Latch<Bool>](), [(me: pthread_t, done: Latch<Bool>)]())) { split, waiter in
                if Self.onlyOwnJobLeft(live, me: waiter.me) { split.0.append(waiter.done) } else { split.1.append(waiter) }
            }
            state.stopWaiters = waiting
            return done
        }
        satisfied.forEach { $0.open(true) }
        releaseDescriptorsIfIdle()
    }

    func stop() {
        let stoppingNow: Bool = state.withLock { state in
            guard state.phase == .running else { return false }
            state.phase = .stopping
            // Under the lock, so no connection can close its socket (and the number be reused) meanwhile.
            for fd in state.connections.values { shutdown(fd, Int32(SHUT_RDWR)) }
            // The port stops listening now (Linux ends a listening socket at its shutdown: a new connection is
            // refused), not when the last thread has left and the descriptor is closed, which on a busy machine can
            // be after stop() has returned.
            shutdown(listener.fd, Int32(SHUT_RDWR))
            return true
        }
        if stoppingNow {
            var byte: UInt8 = 1
            _ = write(listener.stopWrite, &byte, 1)
        }

        // Every thread wakes on the stop pipe or its shut-down socket within milliseconds; the deadline only
        // guards against a handler that itself never returns.
        // Called from a handler, stop() must not wait for its own thread.
        let me = pthread_self()
        let done = Latch<Bool>()
        let already: Bool = state.withLock { state in
            if Self.onlyOwnJobLeft(state.liveThreads, me: me) { return true }
            state.stopWaiters.append((me, done))
            return false
        }
        if !already { _ = done.wait(until: .now + .seconds(2)) }

        if stoppingNow {
            state.withLock { $0.phase = .stopped }
            releaseDescriptorsIfIdle()
        }
    }

    /// True when no job is alive but the caller's own (none, for a caller outside the server's jobs).
    private static func onlyOwnJobLeft(_ live: [UInt64: pthread_t?], me: pthread_t) -> Bool {
        live.values.allSatisfy { thread in thread.map { pthread_equal($0, me) != 0 } ?? false }
    }

    /// Closes the listener and the stop pipe once the server has stopped and no thread can poll them.
    ///
    /// Usually stop() does this; if a thread outlived its wait (a handler that never returns, or stop()
    /// called from a handler), the last thread to end does it, so a descriptor number is never reused
    /// under a thread still watching it.
    private func releaseDescriptorsIfIdle() {
        let release = state.withLock { state in
            guard state.phase == .stopped, state.liveThreads.isEmpty, !state.descriptorsReleased else { return false }
            state.descriptorsReleased = true
            return true
        }
        guard release else { return }
        close(listener.fd)
        close(listener.stopRead)
        close(listener.stopWrite)
    }
}

private func setCloseOnExec(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
}
