import NSEMedia
import NSEPipeline
import NSEPush

/// The figures `nse batch` prints at the end and saves in `report.json`.
public struct BatchSummary: Sendable, Hashable, Codable {
    public struct Download: Sendable, Hashable, Codable {
        public var input: String
        public var url: String
        public var milliseconds: Double
    }

    /// Push files found.
    public var payloads = 0
    /// Pushes with a result (all of them unless the batch was interrupted).
    public var processed = 0
    /// Exit status 0: the intended content (and image) is shown.
    public var passed = 0
    /// Exit status 1: verification found an error.
    public var failed = 0
    /// Exit status 2: the file or folder could not be read.
    public var unreadable = 0
    /// Not processed because the batch was interrupted.
    public var notRun = 0
    /// Pushes that ask for an image (`fcm_options.image`, or the media key of the helper that ran), and those whose image the phone would show.
    public var imagesRequested = 0
    public var imagesShown = 0
    /// Pushes per outcome.
    public var outcomes: [String: Int] = [:]
    /// Pushes per SDK helper that ran (`firebase`, `onesignal`...), see `--sdk`.
    public var helpers: [String: Int] = [:]
    /// Error codes, each with the inputs that have it, in input order.
    public var failuresByCode: [String: [String]] = [:]
    /// Warnings found, over every push (they fail a push only with `--strict`).
    public var warnings = 0
    /// Warning codes, each with the inputs that have it, in input order.
    public var warningsByCode: [String: [String]] = [:]
    /// The slowest downloads, slowest first (at most five).
    public var slowestDownloads: [Download] = []
    public var media = SharedMediaCache.Statistics()
    public var jobs = 0
    public var elapsedMilliseconds: Double = 0
    /// The batch process's peak resident memory (Linux's VmHWM), when the system reports it.
    public var peakMemoryBytes: Int?
    public var interrupted = false
    /// 130 when interrupted, else the worst push's: 0, 1 or 2.
    public var exitStatus: Int32 = 0

    public init() {}

    /// Sums up `entries` (in input order; nil for a push not processed).
    public init(entries: [BatchEntry?], media: SharedMediaCache.Statistics, jobs: Int, elapsedMilliseconds: Double, interrupted: Bool) {
        payloads = entries.count
        self.media = media
        self.jobs = jobs
        self.elapsedMilliseconds = elapsedMilliseconds
        self.interrupted = interrupted
        var downloads: [Download] = []
        for entry in entries {
            guard let entry else {
                notRun += 1
                continue
            }
            processed += 1
            switch entry.exitStatus {
            case 0: passed += 1
            case 1: failed += 1
            default: unreadable += 1
            }
            if entry.imageURL != nil { imagesRequested += 1 }
            if entry.imageShown { imagesShown += 1 }
            outcomes[entry.outcome.rawValue, default: 0] += 1
            if let helper = entry.helper { helpers[helper.sdk.rawValue, default: 0] += 1 }
            var codes: [String] = []
            for diagnostic in entry.errors where !codes.contains(diagnostic.code.rawValue) {
                codes.append(diagnostic.code.rawValue)
            }
            for code in codes { failuresByCode[code, default: []].append(entry.input) }
            warnings += entry.warnings.count
            var warningCodes: [String] = []
            for diagnostic in entry.warnings where !warningCodes.contains(diagnostic.code.rawValue) {
                warningCodes.append(diagnostic.code.rawValue)
            }
            for code in warningCodes { warningsByCode[code, default: []].append(entry.input) }
            if let url = entry.imageURL, let milliseconds = entry.downloadMilliseconds {
                downloads.append(Download(input: entry.input, url: url, milliseconds: milliseconds))
            }
        }
        slowestDownloads = Array(downloads.sorted { $0.milliseconds > $1.milliseconds }.prefix(5))
        exitStatus = interrupted ? 130 : entries.compactMap { $0?.exitStatus }.max() ?? 0
    }
}
