import ArgumentParser
import Foundation
import NSEKit
import NSEMediaServer

/// `make bench`: `nse batch` against its decode floor and against a Python pipeline, on a generated corpus
/// served from loopback. Prints payloads/s, MB/s and peak RSS; see README, "Performance".
@main
struct Benchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nse-bench",
        abstract: "Measure nse batch against the decode floor and a requests + Pillow pipeline.")

    @Option(help: "The nse executable to measure (build it with -c release).")
    var nse = ".build/release/nse"

    @Option(help: "Where the generated corpus is kept between runs.")
    var corpus = ".build/bench-corpus"

    @Option(help: "Pushes per variant.")
    var payloads = 1000

    @Option(help: "Concurrent pushes (nse --jobs, Python workers).")
    var jobs = 8

    @Option(help: "Runs of each measurement; medians are printed.")
    var repeats = 3

    @Option(help: "The Python pipeline to compare with; empty to skip it.")
    var python = "Benchmarks/python_pipeline.py"

    @Flag(help: "Only measure the decode floor, with 1 thread and with every core.")
    var floorOnly = false

    @Option(help: "An extra argument for nse batch in the latency workload (repeat for more), e.g. --latency-nse-argument=--jobs=64.")
    var latencyNseArgument: [String] = []

    @Option(help: "Which workloads to run: all, latency (the delayed, paced CDN) or cpu (the loopback corpus).")
    var workload = "all"

    private var outputs: URL { URL(fileURLWithPath: corpus).appendingPathComponent("outputs") }

    mutating func run() throws {
        guard ["all", "latency", "cpu"].contains(workload) else { throw ValidationError("--workload is all, latency or cpu") }
        if workload != "cpu", !floorOnly {
            let root = URL(fileURLWithPath: self.corpus).appendingPathComponent("latency")
            try LatencyWorkload(root: root, nse: nse, python: python, repeats: repeats, extraArguments: latencyNseArgument).run()
        }
        guard workload != "latency" else { return }
        let corpus = Corpus(payloads: payloads, root: URL(fileURLWithPath: self.corpus))
        try corpus.generateImages()
        let media = MediaDirectory(root: corpus.root.path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        try? FileManager.default.removeItem(at: outputs)
        defer { try? FileManager.default.removeItem(at: outputs) }

        let unique = corpus.pushes(shared: false)
        let shared = corpus.pushes(shared: true)
        let folders = [
            false: try corpus.writePayloads(shared: false, baseURL: server.baseURL),
            true: try corpus.writePayloads(shared: true, baseURL: server.baseURL),
        ]
        let decoded = Array(Set(unique.filter { !$0.malformed && $0.image.isDecoded }.map(\.image.fileName))).sorted()
            .map { corpus.images.appendingPathComponent($0) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        warmPageCache(corpus.images)

        if floorOnly {
            for threads in [1, cores] {
                print("decode floor, \(decoded.count) images, \(threads) threads: \(DecodeFloor.measure(decoded, threads: threads).secondsText)")
            }
            return
        }

        let bytes = [false: corpus.imageBytes(unique), true: corpus.imageBytes(shared)]
        let distinctShared = Set(shared.filter { !$0.malformed && $0.image.exists }.map(\.image)).count
        print("nse-bench: \(payloads) pushes per variant, \(unique.filter { !$0.passes }.count) of them failing; \(cores) cores; --jobs \(jobs); median of \(repeats) runs")
        print("corpus: unique \(decoded.count) images, \(megabytes(bytes[false]!)); shared: \(distinctShared) images, \(megabytes(bytes[true]!)) downloaded per push between them")
        print("")

        let floor = median((0..<repeats).map { _ in DecodeFloor.measure(decoded, threads: cores) })
        var rows: [(String, Bool, Measurement)] = []
        for isShared in [false, true] {
            let expected = (isShared ? shared : unique).filter(\.passes).count
            rows.append(("nse batch", isShared, try measure(repeats) { out in
                let run = try ChildProcess.run([nse, "batch", folders[isShared]!.path, "--out", out.path, "--jobs", String(jobs), "--allow-http", "--quiet"], output: corpus.root.appendingPathComponent("nse-output.txt"))
                return try check(run, summary: nseSummary(out), expected: expected, tool: "nse")
            }))
        }
        if !python.isEmpty {
            for isShared in [false, true] {
                let expected = (isShared ? shared : unique).filter(\.passes).count
                rows.append(("python", isShared, try measure(repeats) { out in
                    let log = corpus.root.appendingPathComponent("python-output.txt")
                    let run = try ChildProcess.run(["python3", python, folders[isShared]!.path, out.path, "--workers", String(jobs)], output: log)
                    return try check(run, summary: pythonSummary(log), expected: expected, tool: "python")
                }))
            }
        }

        func row(_ name: String, _ wall: String, _ count: String, _ rate: String, _ rss: String, _ cpu: String) -> String {
            name.padding(toLength: 24, withPad: " ", startingAt: 0) + wall.leftPadded(9, with: " ")
                + count.leftPadded(12, with: " ") + rate.leftPadded(9, with: " ") + rss.leftPadded(11, with: " ")
                + cpu.leftPadded(10, with: " ")
        }
        print(row("", "wall", "payloads/s", "MB/s", "peak RSS", "CPU"))
        print(row("decode floor, unique", floor.secondsText, "", "", "", ""))
        for (name, isShared, measurement) in rows {
            let seconds = measurement.wall.seconds
            print(row("\(name), \(isShared ? "shared" : "unique")", measurement.wall.secondsText,
                      String(format: "%.1f", Double(payloads) / seconds),
                      String(format: "%.1f", Double(bytes[isShared]!) / 1e6 / seconds),
                      megabytes(measurement.peakRSS), measurement.cpu.secondsText))
        }
        print("")
        let nseUnique = rows.first { $0.0 == "nse batch" && !$0.1 }!.2
        let nseShared = rows.first { $0.0 == "nse batch" && $0.1 }!.2
        print(String(format: "batch / decode floor (unique): %.2f  (target 1.2)", nseUnique.wall.seconds / floor.seconds))
        print("nse batch peak RSS: \(megabytes(max(nseUnique.peakRSS, nseShared.peakRSS)))  (target 64 MB)")
        if let pythonUnique = rows.first(where: { $0.0 == "python" && !$0.1 })?.2,
           let pythonShared = rows.first(where: { $0.0 == "python" && $0.1 })?.2 {
            print(String(format: "nse vs python, unique: %.2fx the speed, %.2fx the memory  (target 2x, 0.25x)",
                         pythonUnique.wall.seconds / nseUnique.wall.seconds, Double(nseUnique.peakRSS) / Double(pythonUnique.peakRSS)))
            print(String(format: "nse vs python, shared: %.2fx the speed, %.2fx the memory",
                         pythonShared.wall.seconds / nseShared.wall.seconds, Double(nseShared.peakRSS) / Double(pythonShared.peakRSS)))
        }
        let startup = try measureStartup(corpus: corpus, server: server)
        print("nse process startup (small payload, warm loopback server): median \(Int((startup.seconds * 1000).rounded())) ms of wall time over 20 runs  (target 50 ms)")
    }

    struct Measurement {
        var wall: Duration
        var peakRSS: Int
        var cpu: Duration
    }

    /// Runs `body` `count` times, each with a fresh output folder; medians of wall time and peak RSS.
    ///
    /// Output folders are all removed at the end, not between runs: on ext4 without a journal (this project's
    /// machines) creating files within 30 s of deleting thousands is measurably slower, which would charge
    /// one tool for the previous one's clean-up. A CI job writes into a fresh folder too.
    private func measure(_ count: Int, _ body: (URL) throws -> ChildRun) throws -> Measurement {
        var runs: [ChildRun] = []
        for _ in 0..<count {
            let out = outputs.appendingPathComponent(UUID().uuidString)
            runs.append(try body(out))
        }
        return Measurement(wall: median(runs.map(\.wall)), peakRSS: median(runs.map(\.peakRSS)), cpu: median(runs.map(\.cpu)))
    }

    /// A run that did not do the work is no measurement: the pushes that should pass must have passed.
    /// The peak memory is the one the tool reports (VmHWM): wait4's ru_maxrss of a posix_spawned child
    /// includes this benchmark's own peak (see PeakMemory in NSEKit).
    private func check(_ run: ChildRun, summary: [String: Any]?, expected: Int, tool: String) throws -> ChildRun {
        guard let passed = summary?["passed"] as? Int, passed == expected else {
            throw BenchError("\(tool) exited \(run.status) with \((summary?["passed"] as? Int).map(String.init) ?? "no") passing pushes; \(expected) expected. See its output in \(corpus)/.")
        }
        var run = run
        if let peak = summary?["peakMemoryBytes"] as? Int { run.peakRSS = peak }
        return run
    }

    private func nseSummary(_ out: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: out.appendingPathComponent("report.json")),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return report["summary"] as? [String: Any]
    }

    /// The Python pipeline's last line: {"payloads": N, "passed": N, ...}.
    private func pythonSummary(_ log: URL) -> [String: Any]? {
        guard let text = try? String(contentsOf: log, encoding: .utf8),
              let last = text.split(separator: "\n").last else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    }

    /// `nse process` of one small push whose image the (warm) loopback server serves: process wall time.
    private func measureStartup(corpus: Corpus, server: LoopbackHTTPServer) throws -> Duration {
        let image = corpus.pushes(shared: false).first { if case .valid(.jpeg, 320, 240, _, _) = $0.image { true } else { false } }!.image
        let payload = corpus.root.appendingPathComponent("startup.json")
        try Data("""
            {"aps": {"alert": {"title": "Startup", "body": "small"}, "mutable-content": 1}, "fcm_options": {"image": "\(server.baseURL)/img/\(image.fileName)"}}
            """.utf8).write(to: payload)
        let log = corpus.root.appendingPathComponent("startup-output.txt")
        var walls: [Duration] = []
        for _ in 0..<21 {
            let run = try ChildProcess.run([nse, "process", payload.path, "--allow-http", "--format", "json"], output: log)
            guard run.status == 0 else { throw BenchError("nse process exited \(run.status); see \(log.path)") }
            walls.append(run.wall)
        }
        return median(Array(walls.dropFirst()))
    }

    /// Reads every image once, so no measurement pays for the disk and all of them find the page cache warm.
    private func warmPageCache(_ folder: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(name).path) else { continue }
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {}
            try? handle.close()
        }
    }
}

func median<T: Comparable>(_ values: [T]) -> T {
    values.sorted()[values.count / 2]
}

func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1e6)
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    var secondsText: String {
        String(format: "%.2f s", seconds)
    }
}
