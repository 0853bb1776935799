import Foundation
import NSEConcurrency
import NSEMedia
import NSEPush
import Synchronization

/// The least time the batch could take: decoding the same images with the same libraries (ImageDecoder over
/// libjpeg-turbo, libpng and giflib, every row of every frame), on every core, with nothing else to do.
enum DecodeFloor {
    static func measure(_ files: [URL], threads: Int) -> Duration {
        let formats = files.map { file -> MediaFormat in
            let handle = FileHandle(forReadingAtPath: file.path)
            defer { try? handle?.close() }
            return MediaFormat.sniff(Array(handle?.readData(ofLength: MediaFormat.sniffLength) ?? Data()))
        }
        let next = Counter()
        let started = ContinuousClock.now
        let finished = (0..<threads).map { _ in Latch<Bool>() }
        for done in finished {
            BlockingExecutor.shared.execute("nse-bench.decode") {
                while let index = next.take(below: files.count) {
                    _ = try? ImageDecoder.decode(files[index], as: formats[index], limits: ImageDecodeLimits())
                }
                done.open(true)
            }
        }
        for done in finished { _ = done.wait() }
        return started.duration(to: .now)
    }
}

/// Hands out 0, 1, 2... to the decoding threads.
final class Counter: Sendable {
    private let value = Mutex(0)

    func take(below limit: Int) -> Int? {
        value.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
