import Foundation
import CCurl
import CNSE
import NSEConcurrency
import Synchronization

/// Every download of the process, on one thread: libcurl's multi interface, so hundreds of transfers are in
/// flight at once while no other thread waits for them. One multi handle keeps one connection cache, so
/// transfers to the same host reuse its connections, and over https libcurl multiplexes them on one HTTP/2
/// connection when the server offers it.
///
/// Why one thread: waiting on the network is not CPU work. A thread per download (as before) held a stack and a
/// scheduler slot per transfer and tied how many downloads a batch could keep waiting to how many pushes it ran;
/// here a batch keeps as many transfers in flight as it has pushes in flight, and the CPU work (decoding) stays
/// one thread per core. The thread is a job of the process's `BlockingExecutor`, started on first use.
///
/// Each transfer keeps its own deadline (libcurl's per-transfer time-outs, set hop by hop), its own size limit
/// and its own cancellation; completions are called on this thread and must be short (resume, open a latch,
/// hand over to the executor).
final class TransferEngine: @unchecked Sendable {
    static let shared = TransferEngine()

    private struct Inbox {
        var submitted: [CurlTransfer] = []
        var started = false
        var inFlight = 0
        var peakInFlight = 0
        var completed = 0
    }

    // Guarded by itself: the hand-over list and the counters, shared with submitting threads.
    private let inbox = Mutex(Inbox())
    /// Released by each submit before its transfer enters `inbox`, acquired by the network thread after taking
    /// transfers out. The inbox's lock already orders the two, but when contended `Mutex` hands over inside the
    /// kernel, where ThreadSanitizer sees no ordering and reported the transfer's own fields (written by the
    /// submitting thread, read by this one) as races; the atomic makes the same order visible to it.
    private let handOver = Atomic(0)
    // Used only by the network thread, apart from `curl_multi_wakeup`, which libcurl allows from any thread.
    private let multi: UnsafeMutableRawPointer?
    /// The transfers in flight by their easy handle; touched only by the network thread.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Gathers the bodies' writes; used only by the network thread.
    private let writer = BodyWriter()

    private init() {
        multi = curl_multi_init()
        if let multi {
            // Ask for no fewer cached connections than transfers a batch may keep in flight, so none is closed
            // only to be opened again for the next push to the same host.
            _ = cnse_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 1024)
            _ = cnse_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        }
    }

    /// Starts `transfer`; its completion is called once, on the network thread.
    func submit(_ transfer: CurlTransfer) {
        guard let multi else {
            transfer.completion(.failure(CurlLibrary.failure("libcurl's multi interface could not be initialised")))
            return
        }
        handOver.add(1, ordering: .releasing)
        let startThread: Bool = inbox.withLock { inbox in
            inbox.submitted.append(transfer)
            inbox.inFlight += 1
            inbox.peakInFlight = max(inbox.peakInFlight, inbox.inFlight)
            defer { inbox.started = true }
            return !inbox.started
        }
        if startThread {
            BlockingExecutor.shared.execute("nse.network") { [self] in loop() }
        } else {
            curl_multi_wakeup(multi)
        }
    }

    /// Wakes the network thread to look at cancellations now rather than at its next turn.
    func wake() {
        if let multi, inbox.withLock({ $0.started }) { curl_multi_wakeup(multi) }
    }

    /// Transfers in flight now, the most at once since the process started, and how many have completed.
    var counts: (inFlight: Int, peak: Int, completed: Int) {
        inbox.withLock { ($0.inFlight, $0.peakInFlight, $0.completed) }
    }

    private func loop() {
        guard let multi else { return }
        while true {
            let submitted = inbox.withLock { inbox in defer { inbox.submitted.removeAll() }; return inbox.submitted }
            _ = handOver.load(ordering: .acquiring)
            for transfer in submitted {
                if let failure = transfer.start(writer: writer) {
                    finish(transfer, .failure(failure))
                } else {
                    add(transfer, to: multi)
                }
            }
            var stillRunning: Int32 = 0
            _ = curl_multi_perform(multi, &stillRunning)
            var easy: UnsafeMutableRawPointer?
            var code = CURLE_OK
            while cnse_curl_multi_next_done(multi, &easy, &code) == 1 {
                guard let easy, let transfer = running.removeValue(forKey: easy) else { continue }
                _ = curl_multi_remove_handle(multi, easy)
                switch transfer.finishHop(code) {
                case .redirected:
                    if let failure = transfer.beginHop() {
                        finish(transfer, .failure(failure))
                    } else {
                        add(transfer, to: multi)
                    }
                case .done(let result):
                    finish(transfer, result)
                }
            }
            abortCancelled(multi)
            // Woken by libcurl's own timers, by sockets, by `submit` and `wake`; the second is a backstop for
            // cancellations of transfers libcurl has no reason to look at.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func add(_ transfer: CurlTransfer, to multi: UnsafeMutableRawPointer) {
        guard let handle = transfer.handle else { return }
        running[handle] = transfer
        let added = curl_multi_add_handle(multi, handle)
        if added != CURLM_OK {
            running.removeValue(forKey: handle)
            finish(transfer, .failure(.network("libcurl could not start the transfer: \(String(cString: curl_multi_strerror(added)))")))
        }
    }

    /// Cancelled transfers end at once, whatever their connection is doing.
    private func abortCancelled(_ multi: UnsafeMutableRawPointer) {
        for (handle, transfer) in running where transfer.isCancelled {
            running.removeValue(forKey: handle)
            _ = curl_multi_remove_handle(multi, handle)
            finish(transfer, .failure(.cancelled))
        }
    }

    private func finish(_ transfer: CurlTransfer, _ result: Result<TransferResult, MediaFetchError>) {
        transfer.closeFile()
        inbox.withLock { inbox in
            inbox.inFlight -= 1
            inbox.completed += 1
        }
        transfer.completion(result)
    }
}
