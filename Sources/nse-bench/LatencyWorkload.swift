import CImageFixtures
import Foundation
import NSEMediaServer

/// The latency-bound workload: what a CI job against a real CDN looks like. 400 pushes over 400 unique
/// push-sized images (about 30 MB), served by a loopback server that waits 150 ms before each response's first
/// byte and then paces it at 8 MB/s per connection (no `tc netem` on these kernels, so the server does it).
///
/// It prints `nse batch` with its defaults, the Python pipeline with 8 threads, and the floor: nse's own CPU time
/// spread over the cores, and what the network alone allows (every transfer at once: the delay plus the largest
/// image at the paced rate). The target: nse at least 4x the peer's speed, within 1.5x of the floor, 64 MB.
struct LatencyWorkload {
    static let pushCount = 400
    static let firstByteDelay: Duration = .milliseconds(150)
    static let bytesPerSecond = 8_000_000
    /// Paced in chunks of 16 KiB: 2 ms apart at 8 MB/s.
    static let chunk = 16_384

    /// One push's image: JPEG, GIF and PNG at the sizes a campaign sends (75 KB on average).
    struct Image {
        enum Format: String { case jpeg = "jpg", png, gif }
        var format: Format
        var width: UInt32
        var height: UInt32
        var seed: UInt32
        var fileName: String { "\(format.rawValue)-\(width)x\(height)-\(seed).\(format.rawValue)" }
    }

    let root: URL
    /// Where each run writes its results; the caller removes it once every workload is done (see `Benchmark`).
    let outputs: URL
    let nse: String
    let python: String
    let repeats: Int
    var extraArguments: [String] = []
    var images: URL { root.appendingPathComponent("img") }

    static func image(_ number: Int) -> Image {
        let seed = UInt32(number)
        switch (number * 37) % 20 {
        case 0..<10: return Image(format: .jpeg, width: 640, height: 480, seed: seed)
        case 10..<13: return Image(format: .jpeg, width: 800, height: 600, seed: seed)
        case 13..<16: return Image(format: .gif, width: 640, height: 480, seed: seed)
        case 16..<18: return Image(format: .png, width: 240, height: 180, seed: seed)
        default: return Image(format: .jpeg, width: 320, height: 240, seed: seed)
        }
    }

    func run() throws {
        let images = (0..<Self.pushCount).map(Self.image)
        try generate(images)
        let media = MediaDirectory(root: root.path)
        // A connection per transfer can be in flight at once: the server's listen backlog and threads allow it.
        let server = try LoopbackHTTPServer { request in Self.delayedAndPaced(media.respond(to: request)) }
        defer { server.stop() }
        let payloads = try writePayloads(images, baseURL: server.baseURL)

        let sizes = images.map { (try? FileManager.default.attributesOfItem(atPath: self.images.appendingPathComponent($0.fileName).path)[.size] as? Int) ?? 0 }
        let totalBytes = sizes.reduce(0, +)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("latency-bound: \(Self.pushCount) pushes over \(Self.pushCount) unique images, \(megabytes(totalBytes)); served after 150 ms, at 8 MB/s per connection; \(cores) cores; median of \(repeats) runs, the tools in turns after one round not counted")

        // The server shares the cores with nse: its CPU during nse's runs (this process does nothing else then) is
        // time a CDN elsewhere would not take from nse, counted in nse's wall time and not in its floor.
        var serverCPU: [Duration] = []
        var tools: [(URL) throws -> ChildRun] = [{ out in
            let log = root.appendingPathComponent("nse-output.txt")
            let before = Self.ownCPU()
            let run = try ChildRun.run([nse, "batch", payloads.path, "--out", out.path, "--allow-http", "--quiet"] + extraArguments, output: log)
            serverCPU.append(Self.ownCPU() - before)
            return try check(run, summary: Self.nseSummary(out), tool: "nse", log: log)
        }]
        if !python.isEmpty {
            tools.append({ out in
                let log = root.appendingPathComponent("python-output.txt")
                let run = try ChildRun.run(["python3", python, payloads.path, out.path, "--workers", "8"], output: log)
                return try check(run, summary: Self.pythonSummary(log), tool: "python", log: log)
            })
        }
        let measured = try measureInTurns(tools, repeats: repeats, outputs: outputs)
        let nseRun = measured[0]
        var rows: [(String, Measurement)] = [("nse batch (defaults)", nseRun)]
        if measured.count > 1 { rows.append(("python, 8 threads", measured[1])) }
        let cpuFloor = nseRun.cpu / cores
        let largest = Double(sizes.max() ?? 0)
        let networkFloor = Self.firstByteDelay + .milliseconds(Int64(largest / Double(Self.bytesPerSecond) * 1000))
        let floor = max(cpuFloor, networkFloor)

        func row(_ name: String, _ wall: String, _ spread: String, _ rate: String, _ rss: String, _ cpu: String) -> String {
            name.padding(toLength: 34, withPad: " ", startingAt: 0) + wall.leftPadded(9, with: " ") + spread.leftPadded(11, with: " ")
                + rate.leftPadded(12, with: " ") + rss.leftPadded(11, with: " ") + cpu.leftPadded(10, with: " ")
        }
        print(row("", "wall", "runs", "payloads/s", "peak RSS", "CPU"))
        for (name, measurement) in rows {
            print(row(name, measurement.wall.secondsText, measurement.spreadText, String(format: "%.1f", Double(Self.pushCount) / measurement.wall.seconds),
                      megabytes(measurement.peakRSS), measurement.cpu.secondsText))
        }
        print(row("floor: nse's CPU / \(cores) cores", cpuFloor.secondsText, "", "", "", ""))
        print(row("floor: the network alone", networkFloor.secondsText, "", "", "", ""))
        // The first of nse's runs is the round not counted.
        print(row("CDN stand-in during nse's runs", "", "", "", "", median(Array(serverCPU.dropFirst())).secondsText))
        print("")
        if let peer = rows.first(where: { $0.0.hasPrefix("python") })?.1 {
            print(String(format: "latency: nse vs python (8 threads): %.2fx the speed, %.2fx the memory  (target 4x)",
                         peer.wall.seconds / nseRun.wall.seconds, Double(nseRun.peakRSS) / Double(peer.peakRSS)))
        }
        print(String(format: "latency: nse / floor: %.2f  (target 1.5)", nseRun.wall.seconds / floor.seconds))
        print("latency: nse peak RSS: \(megabytes(nseRun.peakRSS))  (target 64 MB)")
        print("")
    }

    /// The CDN's behaviour on top of the media directory: the first byte after 150 ms, then 8 MB/s.
    static func delayedAndPaced(_ response: ServedResponse) -> ServedResponse {
        var response = response
        response.delayBeforeHeaders = firstByteDelay
        if case .file(let path) = response.body {
            let interval = Duration.microseconds(Int64(chunk) * 1_000_000 / Int64(bytesPerSecond))
            response.body = .fileStream(.init(path: path, bytesPerChunk: chunk, interval: interval))
        }
        return response
    }

    private func generate(_ images: [Image]) throws {
        try FileManager.default.createDirectory(at: self.images, withIntermediateDirectories: true)
        for image in images where !FileManager.default.fileExists(atPath: self.images.appendingPathComponent(image.fileName).path) {
            let temporary = self.images.appendingPathComponent(".\(image.fileName).tmp")
            let status: Int32
            switch image.format {
            case .jpeg: status = cimagefixtures_write_jpeg(temporary.path, image.width, image.height, 85, 0, image.seed)
            case .png: status = cimagefixtures_write_png(temporary.path, image.width, image.height, 0, image.seed)
            case .gif: status = cimagefixtures_write_gif(temporary.path, image.width, image.height, 1, image.seed)
            }
            guard status == 0 else { throw BenchError("the encoder failed for \(image.fileName)") }
            guard rename(temporary.path, self.images.appendingPathComponent(image.fileName).path) == 0 else {
                throw BenchError("cannot rename \(temporary.path)")
            }
        }
    }

    private func writePayloads(_ images: [Image], baseURL: String) throws -> URL {
        let folder = root.appendingPathComponent("payloads")
        try writePayloadFolder(folder, images.enumerated().map { index, image in
            ("push-\(String(index).leftPadded(4)).json", """
                {"aps": {"alert": {"title": "Latency", "body": "push \(index)"}, "mutable-content": 1}, \
                "fcm_options": {"image": "\(baseURL)/img/\(image.fileName)"}}
                """)
        })
        return folder
    }

    /// This process's CPU time so far, all threads.
    private static func ownCPU() -> Duration {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.cpuTime
    }

    /// Every push must pass: a run that did not do the work is no measurement.
    private func check(_ run: ChildRun, summary: [String: Any]?, tool: String, log: URL) throws -> ChildRun {
        guard let passed = summary?["passed"] as? Int, passed == Self.pushCount else {
            throw BenchError("\(tool) exited \(run.status) with \((summary?["passed"] as? Int).map(String.init) ?? "no") passing pushes in the latency workload; \(Self.pushCount) expected. See \(log.path).")
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

    static func pythonSummary(_ log: URL) -> [String: Any]? {
        guard let text = try? String(contentsOf: log, encoding: .utf8), let last = text.split(separator: "\n").last else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    }
}
