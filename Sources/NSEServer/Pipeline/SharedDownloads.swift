import Foundation
import NSEMedia
import Synchronization

/// The images a burst of pushes shares, as `nse batch` shares them: pushes (to one phone or to many) that ask for
/// the same image URL while earlier ones are still being delivered share one download and one decode, each push
/// still getting its own attachment and its own result (`SharedMediaCache`). A topic message with an image to a
/// thousand phones downloads it once, not a thousand times.
///
/// A burst lasts while any push checked in it is undelivered. Once every one is delivered (before the last delivery
/// is recorded, so before `?settled=1` answers), or the control API clears the state, or the burst has made
/// `downloadsPerBurst` downloads, the next push starts a new burst and downloads afresh. So a test that waits for its
/// pushes to be delivered before it changes what a URL serves sees the new bytes, and a server that is never idle
/// still holds a bounded number of cached files.
///
/// What this changes from real phones: each iPhone downloads its image itself. The phones of one burst see the bytes
/// of the burst's first download of a URL, as phones that asked at the same moment would; an image server that
/// answers each request differently (a counter, a random failure) is asked once per burst, not once per phone.
/// `--no-shared-downloads` gives every push its own download (docs/serve.md, "Shared downloads").
final class SharedDownloads: Sendable {
    /// One burst's cache. Its folder is removed when the last push that used it is done with it.
    final class Burst: Sendable {
        let cache: SharedMediaCache
        /// Pushes checked in this burst and not yet delivered.
        fileprivate let undelivered = Atomic(0)

        fileprivate init(directory: URL) {
            cache = SharedMediaCache(directoryMadeAtFirstDownload: directory)
        }

        deinit {
            try? FileManager.default.removeItem(at: cache.directory)
        }
    }

    /// One push's hold on its burst: counted undelivered from `lease()` until `release()` (its delivery ran) or, for a
    /// push that is never delivered (refused after its checks), until the lease is dropped.
    final class Lease: Sendable {
        let burst: Burst
        private let held = Atomic(true)

        fileprivate init(_ burst: Burst) {
            self.burst = burst
        }

        func release() {
            if held.exchange(false, ordering: .relaxed) { burst.undelivered.subtract(1, ordering: .relaxed) }
        }

        deinit {
            release()
        }
    }

    /// The downloads one burst makes at most: past them the next push starts a new burst, and the old one's files go
    /// once its pushes are delivered. A cached file is at most an attachment's size limit (10 MB for an image).
    static let downloadsPerBurst = 128

    private let root: URL
    private let state = Mutex<(current: Burst?, made: Int)>((nil, 0))

    /// Keeps each burst's files in a folder of `root` (`<data>/downloads`), which is emptied now: a server that
    /// stopped with bursts under way (a crash) left their files there.
    init(root: URL) {
        self.root = root
        try? FileManager.default.removeItem(at: root)
    }

    /// A push's place in the burst under way, or in a new one when every push of the last is delivered and it
    /// downloaded something, or it has made its share of downloads. A burst that downloaded nothing has nothing to
    /// go stale, so text pushes, delivered one by one, all share one and make nothing.
    func lease() -> Lease {
        state.withLock { state in
            if let burst = state.current {
                let made = burst.cache.statistics.downloadsMade
                if made < Self.downloadsPerBurst, made == 0 || burst.undelivered.load(ordering: .relaxed) > 0 {
                    burst.undelivered.add(1, ordering: .relaxed)
                    return Lease(burst)
                }
            }
            state.made += 1
            let burst = Burst(directory: root.appending(path: String(state.made), directoryHint: .isDirectory))
            burst.undelivered.add(1, ordering: .relaxed)
            state.current = burst
            return Lease(burst)
        }
    }

    /// Ends the burst under way (the control API's clear): the next push downloads afresh, whatever is undelivered.
    func end() {
        // Taken out under the lock and released after it: the last reference removes the burst's folder.
        let ended = state.withLock { state in
            defer { state.current = nil }
            return state.current
        }
        withExtendedLifetime(ended) {}
    }
}
