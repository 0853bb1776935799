import Foundation
import ArgumentParser
import NSEMediaServer
import NSEServer
import Synchronization

/// `make bench`: `nse batch` against its floors and against a Python pipeline, on generated corpora served
/// from loopback. Prints payloads/s, MB/s, peak RSS and the ratios the goals are set in; see docs/performance.md.
@main
struct Benchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nse-bench",
        abstract: "Measure nse batch against its floors and a requests + Pillow pipeline.")

    @Option(help: "The nse executable to measure (build it with -c release).")
    var nse = ".build/release/nse"

    @Option(help: "Where the generated corpus is kept between runs.")
    var corpus = ".build/bench-corpus"

    @Option(help: "Pushes of the CPU-bound workload, each with its own image.")
    var uniquePayloads = 300

    @Option(help: "Pushes of the shared-image workload.")
    var sharedPayloads = 1000

    @Option(help: "Images the shared-image workload's pushes draw on.")
    var sharedImages = 120

    @Option(help: "Concurrent pushes (nse --jobs, Python workers).")
    var jobs = 8

    @Option(help: "Runs of each measurement; medians are printed.")
    var repeats = 3

    @Option(help: "The Python pipeline to compare with; empty to skip it and Pillow's floor.")
    var python = "Benchmarks/python_pipeline.py"

    @Flag(help: "Only measure the decode floor of the CPU-bound corpus, with 1 thread and with every core.")
    var floorOnly = false

    @Option(help: "An extra argument for nse batch in the latency workload (repeat for more), e.g. --latency-nse-argument=--jobs=64.")
    var latencyNseArgument: [String] = []

    @Option(help: "Which workloads to run: all, latency (the delayed, paced CDN) or cpu (the loopback corpora).")
    var workload = "all"

    @Option(parsing: .upToNextOption, help: "Instead of the workloads: nse batch over each of these push counts (over --shared-images images), for the scale note.")
    var scale: [Int] = []

    @Option(help: ArgumentHelp("Instead of the workloads: nse batch over this many pushes, each with its own image, at each of four image sizes (320x240 to 2048x1536), for the scale note.", valueName: "pushes"))
    var scaleImageSizes: Int?

    @Option(help: ArgumentHelp("Instead of the workloads: append this many push-sized records to nse serve's journal (fsync'd group commits) with --journal-concurrency appends waiting at once; prints appends/s.", valueName: "records"))
    var journalAppends: Int?

    @Option(help: "Appends waiting at once for --journal-appends (an HTTP/2 connection's concurrent streams).")
    var journalConcurrency = 100

    @Option(help: ArgumentHelp("Instead of the workloads: encode a text-only push's result this many times with JSONEncoder and with SortedJSONEncoder (nse serve's journal line), --repeats interleaved rounds; prints µs per encode.", valueName: "encodes"))
    var jsonEncode: Int?

    func validate() throws {
        guard ["all", "latency", "cpu"].contains(workload) else { throw ValidationError("--workload is all, latency or cpu") }
        guard repeats >= 1 else { throw ValidationError("--repeats must be 1 or more") }
    }

    mutating func run() throws {
        if let jsonEncode {
            try JSONEncodeBenchmark.run(encodes: jsonEncode, rounds: repeats)
            return
        }
        if let journalAppends {
            let folder = URL(fileURLWithPath: corpus).appendingPathComponent("journal-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let concurrency = journalConcurrency
            let figures = try Self.wait { try await JournalBenchmark.run(directory: folder, appends: journalAppends, concurrency: concurrency, recordBytes: 600) }
            print(String(format: "journal: %d appends of 600 bytes, %d waiting at once: %.2f s, %.0f appends/s (fsync'd group commits, %@)",
                         figures.appends, concurrency, figures.seconds, figures.appendsPerSecond, folder.path))
            return
        }
        let root = URL(fileURLWithPath: corpus)
        // Every run of every workload writes into a fresh folder under this one, removed only when the benchmark
        // ends. On ext4 without a journal (this project's machines), a new file's inode is found by skipping every
        // inode freed in the last 60 s (300 s while its table block is dirty): removing one workload's results
        // before the next charged that workload for the clean-up before it. Run benchmarks a few minutes apart,
        // too: the probe below says when a run starts in the wake of such a clean-up.
        let outputs = root.appendingPathComponent("outputs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputs) }
        if !floorOnly {
            print(FileSystemProbe.report(in: outputs))
            print("")
        }
        var cpu = CPUWorkloads(nse: nse, python: python, jobs: jobs, repeats: repeats, root: root, outputs: outputs)
        cpu.uniquePayloads = uniquePayloads
        cpu.sharedPayloads = sharedPayloads
        cpu.sharedImages = sharedImages
        if floorOnly {
            try cpu.printFloors()
        } else if !scale.isEmpty {
            try ScaleRun(nse: nse, jobs: jobs, root: root, images: sharedImages).run(counts: scale)
        } else if let scaleImageSizes {
            try ScaleRun(nse: nse, jobs: jobs, root: root, images: sharedImages).run(imageSizes: scaleImageSizes)
        } else {
            if workload != "cpu" {
                try LatencyWorkload(root: root.appendingPathComponent("latency"), outputs: outputs.appendingPathComponent("latency"), nse: nse, python: python, repeats: repeats, extraArguments: latencyNseArgument).run()
            }
            if workload != "latency" {
                if workload == "all" { print("") }
                try cpu.run()
            }
        }
    }
}

/// Wall time, peak memory and CPU time of one tool on one workload (medians over the runs), and the spread of
/// the wall times.
struct Measurement {
    var wall: Duration
    var peakRSS: Int
    var cpu: Duration
    var fastest: Duration
    var slowest: Duration

    init(medianOf runs: [ChildRun]) {
        wall = median(runs.map(\.wall))
        peakRSS = median(runs.map(\.peakRSS))
        cpu = median(runs.map(\.cpu))
        fastest = runs.map(\.wall).min() ?? .zero
        slowest = runs.map(\.wall).max() ?? .zero
    }

    /// The wall times' range, e.g. `1.08-1.21`.
    var spreadText: String {
        String(format: "%.2f-%.2f", fastest.seconds, slowest.seconds)
    }
}

/// Runs the tools in turns, one round not counted and then `repeats` rounds (nse, its peer, nse, its peer, ...),
/// each run into a fresh folder under `outputs`; the medians of each tool's counted runs.
///
/// In turns, a slow spell of the machine falls on every tool alike rather than on whichever ran in it; after the
/// first round, no counted run starts from a cold page cache (this VM pages out what sat idle for a minute, the
/// tools' own files included). Before each run, what earlier runs wrote is
/// flushed to disk (sync(2)): a run of the unique workload writes 280 MB, which the kernel would otherwise write
/// back, on the same cores, during whichever run came 30 s later.
func measureInTurns(_ tools: [(URL) throws -> ChildRun], repeats: Int, outputs: URL) throws -> [Measurement] {
    var runs = Array(repeating: [ChildRun](), count: tools.count)
    for round in 0...repeats {
        for (index, tool) in tools.enumerated() {
            sync()
            let run = try tool(outputs.appendingPathComponent(UUID().uuidString))
            if round > 0 { runs[index].append(run) }
        }
    }
    return runs.map(Measurement.init(medianOf:))
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

extension Benchmark {
    /// Runs async work to its end from this synchronous command.
    static func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Value, any Error>?>(nil)
        Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
