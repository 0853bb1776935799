import NSEPush

/// What an app's own extension did during its run, as the harness observed it: its network requests, its log,
/// the files it made, its content handler calls and its memory. Times are milliseconds since iOS handed the
/// extension the request.
public struct ExtensionActivity: Sendable, Codable, Equatable {
    public var requests: [ExtensionRequest] = []
    public var log: [ExtensionLogLine] = []
    public var files: [ExtensionFile] = []
    public var handlerCalls: [ContentHandlerCall] = []
    public var memory: ExtensionMemory?

    public init() {}

    /// True when nothing was observed, so reports can leave the section out.
    public var isEmpty: Bool {
        requests.isEmpty && log.isEmpty && files.isEmpty && handlerCalls.isEmpty && memory == nil
    }
}

/// One request the extension made through `URLSession` or `Data(contentsOf:)`, and how it ended.
public struct ExtensionRequest: Sendable, Codable, Equatable {
    /// The API the extension called, such as "URLSession.downloadTask" or "Data(contentsOf:)".
    public var api: String
    public var method: String
    /// The URL as the extension asked for it (before any host mapping).
    public var url: String
    /// The URL after redirects, when the request got that far and it differs.
    public var finalURL: String?
    /// The final response's status; nil when no response arrived.
    public var status: Int?
    /// Body bytes received.
    public var bytes: Int
    public var redirects: Int
    /// When the request started, and how long it took.
    public var startMilliseconds: Double
    public var milliseconds: Double
    public var outcome: Outcome
    /// The error the extension was handed (`NSURLErrorDomain` code and text), when it failed.
    public var error: String?
    /// Why the device fails (or would fail) this request, when it does: a code also found in `diagnostics`.
    public var diagnostic: DiagnosticCode?

    public enum Outcome: String, Sendable, Codable {
        /// A response arrived (any status).
        case completed
        /// The transfer failed: network error, ATS, too large, too many redirects.
        case failed
        /// The extension cancelled it, or its session was invalidated.
        case cancelled
        /// Still running when the extension's time ran out: iOS ends it with the extension.
        case unfinished
    }

    public init(
        api: String, method: String, url: String, finalURL: String? = nil, status: Int? = nil, bytes: Int = 0,
        redirects: Int = 0, startMilliseconds: Double, milliseconds: Double, outcome: Outcome, error: String? = nil,
        diagnostic: DiagnosticCode? = nil
    ) {
        self.api = api
        self.method = method
        self.url = url
        self.finalURL = finalURL
        self.status = status
        self.bytes = bytes
        self.redirects = redirects
        self.startMilliseconds = startMilliseconds
        self.milliseconds = milliseconds
        self.outcome = outcome
        self.error = error
        self.diagnostic = diagnostic
    }
}

/// One line the extension logged (`os_log`, `Logger`, `NSLog`, `print`).
public struct ExtensionLogLine: Sendable, Codable, Equatable {
    public var milliseconds: Double
    /// The API that wrote it: "os_log", "Logger", "NSLog", "print".
    public var source: String
    public var level: Level
    public var subsystem: String?
    public var category: String?
    public var message: String

    /// The unified logging levels (`print` and `NSLog` log at `.default`).
    public enum Level: String, Sendable, Codable {
        case debug, info, `default`, notice, error, fault
    }

    public init(milliseconds: Double, source: String, level: Level, subsystem: String? = nil, category: String? = nil, message: String) {
        self.milliseconds = milliseconds
        self.source = source
        self.level = level
        self.subsystem = subsystem
        self.category = category
        self.message = message
    }
}

/// A file the extension's APIs created, moved or removed during the run.
public struct ExtensionFile: Sendable, Codable, Equatable {
    public var milliseconds: Double
    public var path: String
    public var action: Action
    /// The file's size when the action was recorded, where known.
    public var bytes: Int?
    /// Who acted: "URLSession.downloadTask", "UserDefaults", "UNNotificationAttachment"...
    public var by: String

    public enum Action: String, Sendable, Codable {
        case created, written, moved, removed, attached
    }

    public init(milliseconds: Double, path: String, action: Action, bytes: Int? = nil, by: String) {
        self.milliseconds = milliseconds
        self.path = path
        self.action = action
        self.bytes = bytes
        self.by = by
    }
}

/// One call of the content handler. iOS uses the first call made in time and ignores the rest.
public struct ContentHandlerCall: Sendable, Codable, Equatable {
    public var milliseconds: Double
    /// The thread that called: "didReceive", "serviceExtensionTimeWillExpire" or a callback's thread.
    public var thread: String
    /// This call's content is what the phone shows.
    public var used: Bool

    public init(milliseconds: Double, thread: String, used: Bool) {
        self.milliseconds = milliseconds
        self.thread = thread
        self.used = used
    }
}

/// The extension's memory as far as it can be measured on Linux, inside a test process that may run other
/// extensions at the same time.
public struct ExtensionMemory: Sendable, Codable, Equatable {
    /// The most memory the stand-ins held for this run at once (decoded bitmaps, response bodies kept in memory).
    /// Always exact for this run, even when runs overlap.
    public var accountedPeakBytes: Int
    /// How far the process's resident memory rose during the run: it includes the extension's own allocations,
    /// but only means something when no other extension ran in the process meanwhile. Nil when not measured.
    public var processGrowthBytes: Int?
    public var processMeasurement: ProcessMeasurement

    public enum ProcessMeasurement: String, Sendable, Codable {
        case measured
        /// Another run overlapped this one, so the process-wide figure is not this run's.
        case notMeasuredConcurrentRuns = "not-measured-concurrent-runs"
        /// Measurement was switched off.
        case off
        /// The system does not report peak memory (no /proc/self/clear_refs).
        case unsupported
    }

    public init(accountedPeakBytes: Int, processGrowthBytes: Int?, processMeasurement: ProcessMeasurement) {
        self.accountedPeakBytes = accountedPeakBytes
        self.processGrowthBytes = processGrowthBytes
        self.processMeasurement = processMeasurement
    }

    /// The figure judged against the device's limit: the larger of the two where both exist.
    public var judgedBytes: Int {
        max(accountedPeakBytes, processGrowthBytes ?? 0)
    }
}
