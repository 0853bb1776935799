import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Synchronization
import Testing

/// A folder of push files for batch tests, written as a team keeps them: nested folders of APNs payloads.
struct PayloadTree {
    let root: URL

    /// Writes a Firebase-style payload at `path` (relative to the root) asking for `imageURL`.
    func add(_ path: String, imageURL: String?, title: String = "Sale") throws {
        let push = firebasePayload(imageURL: imageURL, title: title)
        try write(path, JSONValue.object(push.userInfo).compactData())
    }

    func write(_ path: String, _ text: String) throws {
        try write(path, Data(text.utf8))
    }

    func write(_ path: String, _ data: Data) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }
}

/// Runs a batch over `tree` and returns the report, the entries in completion order and when each arrived.
struct BatchRun {
    var report: BatchReport
    var completed: [(index: Int, entry: BatchEntry, at: ContinuousClock.Instant)]
}

func runBatch(
    _ tree: PayloadTree, out: URL?, jobs: Int = 4, readAhead: Int? = nil, profile: DeviceProfile = loopbackProfile()
) async throws -> BatchRun {
    let inputs = try BatchInputDiscovery.discover([tree.root.path], excluding: out.map { [$0] } ?? [])
    return try await runBatch(inputs, out: out, jobs: jobs, readAhead: readAhead, profile: profile)
}

func runBatch(
    _ inputs: [BatchInput], out: URL?, jobs: Int = 4, readAhead: Int? = nil, profile: DeviceProfile = loopbackProfile()
) async throws -> BatchRun {
    let runner = BatchRunner(
        pipeline: Pipeline(device: profile, changes: ContentChanges(titleSuffix: " [b]")), jobs: jobs, readAhead: readAhead, outDirectory: out)
    let completed = Mutex<[(Int, BatchEntry, ContinuousClock.Instant)]>([])
    let report = try await runner.run(inputs) { index, entry in
        completed.withLock { $0.append((index, entry, .now)) }
    }
    return BatchRun(report: report, completed: completed.withLock { $0 }.map { (index: $0.0, entry: $0.1, at: $0.2) })
}

/// Everything under `folder`, as sorted relative paths (hidden files included).
func listing(_ folder: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    var paths: [String] = []
    while let path = enumerator?.nextObject() as? String { paths.append(path) }
    return paths.sorted()
}
