import CNSESystem
import Foundation

/// What every nse program sets before any other work: glibc's allocator tuned for peak memory, SIGPIPE ignored.
/// `nse-serve` links jemalloc in glibc's allocator's place (Package.swift), so there the two `mallopt` calls tune an
/// allocator nothing uses.
package enum ProcessDefaults {
    package static func apply() {
        // glibc raises its mmap threshold to the size of every large block freed (up to 32 MB); from then on
        // image-sized buffers come from the per-thread arenas, which keep what is freed. A batch's peak memory
        // then grew with its pushes and threads. A fixed threshold keeps every block over 128 KiB in a mapping of
        // its own, returned to the system when freed.
        _ = csystem_malloc_set_mmap_threshold(128 * 1024)
        // glibc gives threads arenas of their own, up to 8 per core, each keeping what is freed in it. A batch's
        // worker runs a few dozen threads (the executor starts one per job while every other is busy), and only as
        // many run at once as there are cores: one arena per core lowers a batch's peak memory at no cost in time.
        _ = csystem_malloc_set_arena_max(Int32(ProcessInfo.processInfo.activeProcessorCount))
        // A reader that leaves (`nse batch | head`) must end only the printing: with SIGPIPE at its default the
        // first write after it killed nse before it wrote report.json, JUnit or HTML, and a batch's supervisor took
        // the signal for a crash. Ignored, a write to the closed pipe fails with EPIPE, which printing ignores.
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
