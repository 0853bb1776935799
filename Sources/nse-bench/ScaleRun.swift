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
        print(CPUWorkloads.row("pushes", "wall", "payloads/s", "", "peak RSS", "CPU"))
        for count in counts {
            var corpus = Corpus(payloads: count, root: root)
            corpus.sharedPool = images
            // Only the shared pool: every push here draws on it (a unique image per push would be 100 GB at 100,000).
            try corpus.generateImages(for: [true])
            let pushes = corpus.pushes(shared: true)
            let folder = try corpus.writePayloads(shared: true, baseURL: server.baseURL)
            let out = outputs.appendingPathComponent(String(count))
            let run = try ChildRun.run([nse, "batch", folder.path, "--out", out.path, "--jobs", String(jobs), "--allow-http", "--quiet"], output: root.appendingPathComponent("nse-output.txt"))
            let checked = try CPUWorkloads.check(run, summary: CPUWorkloads.nseSummary(out), expected: pushes.filter(\.passes).count, tool: "nse", root: root)
            print(CPUWorkloads.row(String(count), checked.wall.secondsText, String(format: "%.1f", Double(count) / checked.wall.seconds), "", megabytes(checked.peakRSS), checked.cpu.secondsText))
        }
    }
}
