import Foundation
import NSEMediaServer

/// `nse-bench --scale 1000 10000 100000`: one `nse batch` per push count, the pushes drawing on a fixed set of
/// images, for the scale note in docs/performance.md (how time and memory grow with the number of pushes).
struct ScaleRun {
    var nse: String
    var jobs: Int
    var root: URL
    var images: Int

    func run(counts: [Int]) throws {
        let media = MediaDirectory(root: root.path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        let outputs = root.appendingPathComponent("scale-outputs")
        try? FileManager.default.removeItem(at: outputs)
        defer { try? FileManager.default.removeItem(at: outputs) }
        print("nse-bench --scale: nse batch --jobs \(jobs), pushes over \(images) images, one run each")
        print(CPUWorkloads.row("pushes", "wall", "", "payloads/s", "", "peak RSS", "CPU"))
        for count in counts {
            var corpus = Corpus(payloads: count, root: root)
            corpus.sharedPool = images
            // Only the shared pool: every push here draws on it (a unique image per push would be 100 GB at 100,000).
            try corpus.generateImages(for: [true])
            let pushes = corpus.pushes(shared: true)
            let folder = try corpus.writePayloads(shared: true, baseURL: server.baseURL)
            let checked = try batch(folder, out: outputs.appendingPathComponent(String(count)), expected: pushes)
            print(CPUWorkloads.row(String(count), checked.wall.secondsText, "", String(format: "%.1f", Double(count) / checked.wall.seconds), "", megabytes(checked.peakRSS), checked.cpu.secondsText))
        }
    }

    /// `nse-bench --scale-image-sizes N`: one `nse batch` of N pushes per image size, every push with an image of
    /// its own (the unique workload's mix of formats and broken files), for the scale note: how time and memory
    /// grow with the size of the images.
    func run(imageSizes pushes: Int) throws {
        let outputs = root.appendingPathComponent("scale-outputs")
        try? FileManager.default.removeItem(at: outputs)
        defer { try? FileManager.default.removeItem(at: outputs) }
        print("nse-bench --scale-image-sizes: nse batch --jobs \(jobs), \(pushes) pushes per size, each with its own image, one run each")
        print(CPUWorkloads.row("image size", "wall", "", "payloads/s", "MB/s", "peak RSS", "CPU"))
        for (width, height) in [(320, 240), (640, 480), (1280, 960), (2048, 1536)] as [(UInt32, UInt32)] {
            // A corpus of its own per size (its own images and payloads), beside the workloads' corpus.
            let sizeRoot = root.appendingPathComponent("size-\(width)x\(height)")
            var corpus = Corpus(payloads: pushes, root: sizeRoot)
            corpus.sizes = [(width, height)]
            corpus.includesLarge = false
            try corpus.generateImages(for: [false])
            let media = MediaDirectory(root: sizeRoot.path)
            let server = try LoopbackHTTPServer { media.respond(to: $0) }
            defer { server.stop() }
            let list = corpus.pushes(shared: false)
            let folder = try corpus.writePayloads(shared: false, baseURL: server.baseURL)
            let checked = try batch(folder, out: outputs.appendingPathComponent("\(width)x\(height)"), expected: list)
            let bytes = corpus.imageBytes(list)
            print(CPUWorkloads.row(
                "\(width)x\(height) (\(megabytes(bytes)))", checked.wall.secondsText, "",
                String(format: "%.1f", Double(pushes) / checked.wall.seconds),
                String(format: "%.1f", Double(bytes) / 1_000_000 / checked.wall.seconds),
                megabytes(checked.peakRSS), checked.cpu.secondsText))
        }
    }

    /// One `nse batch` of the pushes in `folder` into `out`, checked against the pushes that should pass.
    private func batch(_ folder: URL, out: URL, expected pushes: [Corpus.Push]) throws -> ChildRun {
        let run = try ChildRun.run(
            [nse, "batch", folder.path, "--out", out.path, "--jobs", String(jobs), "--allow-http", "--quiet"],
            output: root.appendingPathComponent("nse-output.txt"))
        return try CPUWorkloads.check(run, summary: CPUWorkloads.nseSummary(out), expected: pushes.filter(\.passes).count, tool: "nse", root: root)
    }
}
