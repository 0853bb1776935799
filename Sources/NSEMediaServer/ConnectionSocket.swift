#if canImport(Glibc)
import Glibc
#endif

/// Why a wait, read or write on a connection ended without doing its job.
enum SocketEnd: Error, Equatable {
    /// The client closed or reset the connection.
    case peerClosed
    /// The server is stopping; its stop signal became readable.
    case stopped
    /// The deadline passed first.
    case timedOut
    /// Any other system error (errno).
    case failed(Int32)
}

/// One accepted, non-blocking TCP connection whose every wait also wakes when the server stops.
///
/// The stop signal is the read end of a pipe that the server writes one byte to and never drains, so every
/// thread polling it wakes at once and keeps waking: a broadcast that cannot be missed.
struct ConnectionSocket: Sendable {
    let fd: Int32
    let stopSignal: Int32

    /// Waits until the socket is ready for `events` (POLLIN / POLLOUT), the server stops, or `deadline` passes.
    ///
    /// An error or hang-up on the socket counts as ready: the following recv/send reports it precisely.
    func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(SocketEnd) {
        var fds = [
            pollfd(fd: fd, events: events, revents: 0),
            pollfd(fd: stopSignal, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let timeout = pollTimeout(until: deadline)
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .failed(errno)
            }
            if fds[1].revents != 0 { throw .stopped }
            if fds[0].revents & Int16(POLLNVAL) != 0 { throw .failed(EBADF) }
            if fds[0].revents != 0 { return }
            if let deadline, ContinuousClock.now >= deadline { throw .timedOut }
        }
    }

    /// Sleeps for `duration`, waking early only when the server stops.
    func pause(for duration: Duration) throws(SocketEnd) {
        guard duration > .zero else { return }
        let deadline = ContinuousClock.now.advanced(by: duration)
        var fds = [pollfd(fd: stopSignal, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 1, pollTimeout(until: deadline))
            if ready < 0 && errno != EINTR { throw .failed(errno) }
            if ready > 0 { throw .stopped }
            if ContinuousClock.now >= deadline { return }
        }
    }

    /// Appends what the client sent (at most `limit` bytes) to `buffer`, waiting until `deadline` for it.
    func receive(into buffer: inout [UInt8], limit: Int = 65_536, until deadline: ContinuousClock.Instant?) throws(SocketEnd) {
        // Not a zeroed array: with hundreds of connections (the latency benchmark's 400), zeroing 64 KiB per call
        // touched fresh pages every time and was most of the server's CPU besides sending, CPU taken from the
        // program under test on the same cores. recv touches only the pages it fills.
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, limit), alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = recv(fd, chunk.baseAddress, chunk.count, 0)
            if count > 0 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                return
            }
            if count == 0 { throw .peerClosed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), until: deadline)
            case ECONNRESET, EPIPE, ENOTCONN: throw .peerClosed
            case let code: throw .failed(code)
            }
        }
    }

    /// Sends every byte, waiting for the socket to drain as needed; never raises SIGPIPE.
    func send(_ bytes: UnsafeRawBufferPointer, until deadline: ContinuousClock.Instant?) throws(SocketEnd) {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLOUT), until: deadline)
            case EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN: throw .peerClosed
            case let code: throw .failed(code)
            }
        }
    }

    /// Sends `count` bytes of the open file `file`, from byte `start`, with sendfile(2), which hands the page
    /// cache's pages to the socket: no copy through this process. Each wait for the socket to drain may last
    /// `timeout`. A file that ends before `start + count` fails with EIO.
    ///
    /// Call it only inside `withBrokenPipeBlocked`: sendfile(2) has no MSG_NOSIGNAL.
    func sendFile(_ file: Int32, from start: Int, count: Int, timeout: Duration) throws(SocketEnd) {
        var offset = off_t(start)
        let end = off_t(start) + off_t(count)
        while offset < end {
            let sent = Glibc.sendfile(fd, file, &offset, Int(end - offset))
            if sent > 0 { continue }
            if sent == 0 { throw .failed(EIO) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLOUT), until: ContinuousClock.now.advanced(by: timeout))
            case EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN: throw .peerClosed
            case let code: throw .failed(code)
            }
        }
    }

    /// Sends the first `count` bytes of `bytes` (all of them when nil).
    func send(_ bytes: [UInt8], count: Int? = nil, until deadline: ContinuousClock.Instant?) throws(SocketEnd) {
        // Array.withUnsafeBytes does not carry typed throws through, so carry the error out by hand.
        var failure: SocketEnd?
        bytes.withUnsafeBytes { buffer in
            do throws(SocketEnd) {
                try send(UnsafeRawBufferPointer(rebasing: buffer[0..<(count ?? buffer.count)]), until: deadline)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Waits, discarding anything sent, until the client hangs up, the server stops or `deadline` passes.
    func drainUntilClosed(until deadline: ContinuousClock.Instant?) {
        var sink: [UInt8] = []
        while true {
            do {
                sink.removeAll(keepingCapacity: true)
                try receive(into: &sink, until: deadline)
            } catch {
                return
            }
        }
    }

    /// Ends the connection so the client sees everything already sent, then EOF, rather than a reset.
    ///
    /// Closing with unread input in the kernel buffer makes Linux send RST, which can destroy the response
    /// before the client reads it; so shut down the sending side first and read until the client hangs up.
    func closeGracefully(lingering: Duration = .milliseconds(500)) {
        shutdown(fd, Int32(SHUT_WR))
        drainUntilClosed(until: ContinuousClock.now.advanced(by: lingering))
    }
}

/// Runs `body` with SIGPIPE blocked on this thread, for writes that cannot say MSG_NOSIGNAL (sendfile(2)).
///
/// A server in a library must not change how the whole process treats SIGPIPE, so the signal is only blocked
/// here, and one raised meanwhile is taken back before the thread's mask is restored. Once per body, not per
/// write: a paced body is hundreds of writes.
func withBrokenPipeBlocked(_ body: () throws(SocketEnd) -> Void) throws(SocketEnd) {
    var brokenPipe = sigset_t()
    sigemptyset(&brokenPipe)
    sigaddset(&brokenPipe, SIGPIPE)
    var previousMask = sigset_t()
    pthread_sigmask(SIG_BLOCK, &brokenPipe, &previousMask)
    defer {
        var pending = sigset_t()
        if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec()
            _ = sigtimedwait(&brokenPipe, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
    try body()
}

/// Milliseconds until `deadline` for poll(2): -1 waits forever, and a deadline in the past polls once.
func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
    guard let deadline else { return -1 }
    let remaining = ContinuousClock.now.duration(to: deadline)
    if remaining <= .zero { return 0 }
    let (seconds, attoseconds) = remaining.components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
    return Int32(clamping: milliseconds)
}
