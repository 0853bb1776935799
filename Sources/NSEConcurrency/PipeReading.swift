import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// The next bytes of a pipe (at most `limit`), empty at its end; a read interrupted by a signal is retried.
    ///
    /// Foundation's `availableData` and `readDataToEndOfFile()` trap (`try!`) on EINTR, which a thread of a process
    /// that has children gets whenever a signal handler without SA_RESTART runs on it, so readers of child
    /// processes' pipes use this instead.
    public func readRetryingInterruptions(upTo limit: Int = 65536) -> Data {
        var buffer = [UInt8](repeating: 0, count: max(limit, 1))
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer.prefix(count)) }
            // Any other error (EBADF, EIO) ends the stream as its end would.
            if errno != EINTR { return Data() }
        }
    }

    /// Everything up to the pipe's end, retrying interrupted reads.
    public func readToEndRetryingInterruptions() -> Data {
        var data = Data()
        while true {
            let chunk = readRetryingInterruptions()
            if chunk.isEmpty { return data }
            data += chunk
        }
    }
}
