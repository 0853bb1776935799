import Foundation
import CImageFixtures
import NSEMediaServer

/// The CPU-bound workloads of `make bench` (issue 12): every push with its own large image (300 images, about
/// 290 MB), and 1000 pushes sharing 120 images; each against the decode floor, Pillow's full-decode floor and the
/// Python peer. Kept apart from the latency workload so each can change without touching the other.
struct CPUWorkloads {
    var nse: String
    var python: String
    var jobs: Int
    var repeats: Int
    var root: URL
    /// Where each run writes its results; the caller removes it once every workload is done (see `Benchmark`).
    var outputs: URL
    var uniquePayloads = 300
    var sharedPayloads = 1000
    var sharedImages = 120

    /// Larger than the default sizes: 300 of them come to about 290 MB, so decoding, not the harness, dominates.
    static let uniqueSizes: [(UInt32, UInt32)] = [(640, 480), (1024, 768), (1280, 960), (1600, 1200), (2048, 1536)]

    var unique: Corpus {
        var corpus = Corpus(payloads: uniquePayloads, root: root)
        corpus.sizes = Self.uniqueSizes
        return corpus
    }

    var shared: Corpus {
        var corpus = Corpus(payloads: sharedPayloads, root: root)
        corpus.sharedPool = sharedImages
        return corpus
    }

    /// Generates both corpora (kept between runs), serves them on loopback, measures and prints.
    func run() throws {
        try unique.generateImages()
        try shared.generateImages()
        let media = MediaDirectory(root: root.path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }

        let uniquePushes = unique.pushes(shared: false)
        let sharedPushes = shared.pushes(shared: true)
        let uniqueFolder = try unique.writePayloads(shared: false, baseURL: server.baseURL)
        let sharedFolder = try shared.writePayloads(shared: true, baseURL: server.baseURL)
        let decoded = Array(Set(uniquePushes.filter { !$0.malformed && $0.image.isDecoded }.map(\.image.fileName))).sorted()
            .map { unique.images.appendingPathComponent($0) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        warmPageCache(unique.images)

        let uniqueBytes = unique.imageBytes(uniquePushes)
        let sharedBytes = shared.imageBytes(sharedPushes)
        let distinctShared = Set(sharedPushes.filter { !$0.malformed && $0.image.exists }.map(\.image)).count
        print("nse-bench, CPU-bound workloads: \(cores) cores; --jobs \(jobs); median of \(repeats) runs, the tools in turns after one round not counted")
        print("unique: \(uniquePushes.count) pushes, \(decoded.count) images, \(megabytes(uniqueBytes)), \(uniquePushes.filter { !$0.passes }.count) failing")
        print("shared: \(sharedPushes.count) pushes over \(distinctShared) images, \(megabytes(sharedBytes)) downloaded per push between them")
        print("")

        let floor = median((0..<repeats).map { _ in DecodeFloor.measure(decoded, threads: cores) })
        let pillowCPU = python.isEmpty ? nil : try PillowFloor.measure(decoded, root: root, repeats: repeats)
        var rows: [(name: String, shared: Bool, measurement: Measurement)] = []
        for (isShared, corpus, pushes, folder) in [(false, unique, uniquePushes, uniqueFolder), (true, shared, sharedPushes, sharedFolder)] {
            let expected = pushes.filter(\.passes).count
            var tools: [(URL) throws -> ChildRun] = [{ out in
                let run = try ChildRun.run([nse, "batch", folder.path, "--out", out.path, "--jobs", String(jobs), "--allow-http", "--quiet"], output: corpus.root.appendingPathComponent("nse-output.txt"))
                return try Self.check(run, summary: Self.nseSummary(out), expected: expected, tool: "nse", root: root)
            }]
            if !python.isEmpty {
                tools.append({ out in
                    let log = corpus.root.appendingPathComponent("python-output.txt")
                    let run = try ChildRun.run(["python3", python, folder.path, out.path, "--workers", String(jobs)], output: log)
                    return try Self.check(run, summary: Self.pythonSummary(log), expected: expected, tool: "python", root: root)
                })
            }
            let measured = try measureInTurns(tools, repeats: repeats, outputs: outputs)
            rows.append(("nse batch", isShared, measured[0]))
            if measured.count > 1 { rows.append(("python", isShared, measured[1])) }
        }

        print(Self.row("", "wall", "runs", "payloads/s", "MB/s", "peak RSS", "CPU"))
        print(Self.row("decode floor, unique", floor.secondsText, "", "", "", "", ""))
        if let pillowCPU {
            print(Self.row("Pillow decode / cores", (pillowCPU / cores).secondsText, "", "", "", "", pillowCPU.secondsText))
        }
        for row in rows {
            let seconds = row.measurement.wall.seconds
            let count = row.shared ? sharedPushes.count : uniquePushes.count
            let bytes = row.shared ? sharedBytes : uniqueBytes
            print(Self.row("\(row.name), \(row.shared ? "shared" : "unique")", row.measurement.wall.secondsText,
                           row.measurement.spreadText, String(format: "%.1f", Double(count) / seconds),
                           String(format: "%.1f", Double(bytes) / 1e6 / seconds),
                           megabytes(row.measurement.peakRSS), row.measurement.cpu.secondsText))
        }
        print("")
        let nseUnique = rows.first { $0.name == "nse batch" && !$0.shared }!.measurement
        let nseShared = rows.first { $0.name == "nse batch" && $0.shared }!.measurement
        print(String(format: "nse / decode floor, unique: %.2f", nseUnique.wall.seconds / floor.seconds))
        if let pillowCPU {
            print(String(format: "nse / (Pillow decode CPU / cores), unique: %.2f  (target at most 1.0)",
                         nseUnique.wall.seconds / (pillowCPU / cores).seconds))
        }
        if let pythonUnique = rows.first(where: { $0.name == "python" && !$0.shared })?.measurement,
           let pythonShared = rows.first(where: { $0.name == "python" && $0.shared })?.measurement {
            print(String(format: "nse vs python, unique: %.2fx the speed, %.2fx the memory  (target 2.5x)",
                         pythonUnique.wall.seconds / nseUnique.wall.seconds, Double(nseUnique.peakRSS) / Double(pythonUnique.peakRSS)))
            print(String(format: "nse vs python, shared: %.2fx the speed, %.2fx the memory  (target 8x)",
                         pythonShared.wall.seconds / nseShared.wall.seconds, Double(nseShared.peakRSS) / Double(pythonShared.peakRSS)))
        }
        print("nse batch peak RSS: unique \(megabytes(nseUnique.peakRSS)), shared \(megabytes(nseShared.peakRSS))")
        let startup = try Startup.measure(nse: nse, corpus: unique, baseURL: server.baseURL)
        print("nse process of one push, start to exit: median \(Int((startup.seconds * 1000).rounded())) ms over 20 runs  (target 30 ms)")
    }

    /// A run that did not do the work is no measurement: the pushes that should pass must have passed.
    /// The peak memory is the one the tool reports (VmHWM): wait4's ru_maxrss of a posix_spawned child
    /// includes this benchmark's own peak (see PeakMemory in NSEKit).
    static func check(_ run: ChildRun, summary: [String: Any]?, expected: Int, tool: String, root: URL) throws -> ChildRun {
        guard let passed = summary?["passed"] as? Int, passed == expected else {
            throw BenchError("\(tool) exited \(run.status) with \((summary?["passed"] as? Int).map(String.init) ?? "no") passing pushes; \(expected) expected. See its output in \(root.path)/.")
        }
        var run = run
        if let peak = summary?["peakMemoryBytes"] as? Int { run.peakRSS = peak }
        return run
    }

    static func nseSummary(_ out: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: out.appendingPathComponent("report.json")),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return report["summary"] as? [String: Any]
    }

    /// The Python pipeline's last line: {"payloads": N, "passed": N, ...}.
    static func pythonSummary(_ log: URL) -> [String: Any]? {
        guard let text = try? String(contentsOf: log, encoding: .utf8),
              let last = text.split(separator: "\n").last else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    }

    static func row(_ name: String, _ wall: String, _ spread: String, _ count: String, _ rate: String, _ rss: String, _ cpu: String) -> String {
        name.padding(toLength: 24, withPad: " ", startingAt: 0) + wall.leftPadded(9, with: " ") + spread.leftPadded(11, with: " ")
            + count.leftPadded(12, with: " ") + rate.leftPadded(9, with: " ") + rss.leftPadded(11, with: " ")
            + cpu.leftPadded(10, with: " ")
    }
}

/// Pillow's full decode of the same images, on one thread: its CPU time (Benchmarks/pillow_decode.py).
enum PillowFloor {
    static let script = "Benchmarks/pillow_decode.py"

    static func measure(_ files: [URL], root: URL, repeats: Int) throws -> Duration {
        let list = root.appendingPathComponent("pillow-files.txt")
        try Data(files.map { $0.path + "\n" }.joined().utf8).write(to: list)
        let log = root.appendingPathComponent("pillow-output.txt")
        var times: [Duration] = []
        for _ in 0..<repeats {
            let run = try ChildRun.run(["sh", "-c", "exec python3 \"$0\" < \"$1\"", script, list.path], output: log)
            guard run.status == 0, let summary = CPUWorkloads.pythonSummary(log),
                  let seconds = summary["cpuSeconds"] as? Double else {
                throw BenchError("\(script) exited \(run.status); see \(log.path)")
            }
            times.append(.milliseconds(Int64((seconds * 1000).rounded())))
        }
        return median(times)
    }
}

/// `nse process` of one small push whose image the (warm) loopback server serves: the process's wall time.
enum Startup {
    static func measure(nse: String, corpus: Corpus, baseURL: String) throws -> Duration {
        let payload = corpus.root.appendingPathComponent("startup.json")
        let image = Corpus.Image.valid(format: .jpeg, width: 320, height: 240, frames: 1, seed: 900_001)
        let file = corpus.images.appendingPathComponent(image.fileName)
        if !FileManager.default.fileExists(atPath: file.path) {
            guard cimagefixtures_write_jpeg(file.path, 320, 240, 85, 0, 900_001) == 0 else {
                throw BenchError("the encoder failed for \(file.path)")
            }
        }
        try Data("""
            {"aps": {"alert": {"title": "Startup", "body": "small"}, "mutable-content": 1}, "fcm_options": {"image": "\(baseURL)/img/\(image.fileName)"}}
            """.utf8).write(to: payload)
        let log = corpus.root.appendingPathComponent("startup-output.txt")
        var walls: [Duration] = []
        for _ in 0..<21 {
            let run = try ChildRun.run([nse, "process", payload.path, "--allow-http", "--format", "json"], output: log)
            guard run.status == 0 else { throw BenchError("nse process exited \(run.status); see \(log.path)") }
            walls.append(run.wall)
        }
        return median(Array(walls.dropFirst()))
    }
}

/// Reads every image once, so no measurement pays for the disk and all of them find the page cache warm.
func warmPageCache(_ folder: URL) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
        guard let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(name).path) else { continue }
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {}
        try? handle.close()
    }
}

extension CPUWorkloads {
    /// `--floor-only`: the CPU-bound corpus decoded by ImageDecoder on 1 thread and on every core.
    func printFloors() throws {
        try unique.generateImages()
        let decoded = Array(Set(unique.pushes(shared: false).filter { !$0.malformed && $0.image.isDecoded }.map(\.image.fileName))).sorted()
            .map { unique.images.appendingPathComponent($0) }
        warmPageCache(unique.images)
        for threads in [1, ProcessInfo.processInfo.activeProcessorCount] {
            print("decode floor, \(decoded.count) images, \(threads) threads: \(DecodeFloor.measure(decoded, threads: threads).secondsText)")
        }
    }
}
