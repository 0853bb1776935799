import Foundation

/// Gathers the body bytes of the transfer libcurl is reading into writes of up to 128 KiB, on the network thread.
///
/// Why: libcurl hands a body over 16 KiB at a time (`CurlTransfer.bufferSize`, kept small because every transfer in
/// flight holds a buffer of that size), and on ext4 each `write(2)` costs more than its bytes: writes of 16 KiB
/// take about 1.6 times the CPU of writes of 128 KiB. libcurl reads one transfer's socket until it is dry
/// before it turns to the next, so one buffer for the whole thread gathers most of each transfer's bytes; the
/// bytes of a transfer are written out when another transfer's arrive, when the buffer is full, and always before
/// the transfer is judged or its file closed (`CurlTransfer.finishHop`, `closeFile`), so a file is complete
/// before anyone reads it and a failed write is reported as that transfer's.
///
/// Used only by the network thread (`TransferEngine`).
final class BodyWriter: @unchecked Sendable {
    static let capacity = 128 * 1024

    private let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: BodyWriter.capacity, alignment: 16)
    private var count = 0
    /// The transfer whose bytes the buffer holds; nil when it holds none.
    private var owner: CurlTransfer?

    deinit {
        storage.deallocate()
    }

    /// Takes `chunk` of `transfer`'s body, writing out another transfer's bytes first.
    func append(_ chunk: UnsafeRawBufferPointer, for transfer: CurlTransfer) {
        if owner !== transfer || count + chunk.count > Self.capacity { flush() }
        guard chunk.count < Self.capacity, let base = chunk.baseAddress else {
            transfer.writeOut(chunk)
            return
        }
        (storage.baseAddress! + count).copyMemory(from: base, byteCount: chunk.count)
        count += chunk.count
        owner = transfer
    }

    /// Writes out what the buffer holds of `transfer`'s body, if anything.
    func flush(for transfer: CurlTransfer) {
        if owner === transfer { flush() }
    }

    private func flush() {
        if let owner, count > 0 { owner.writeOut(UnsafeRawBufferPointer(rebasing: storage[0..<count])) }
        count = 0
        owner = nil
    }
}
