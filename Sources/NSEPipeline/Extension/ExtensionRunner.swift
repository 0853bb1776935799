import Foundation
import NSEMedia
import NSEPush

/// What an extension works on: the content iOS delivered and the best attempt at the new content so far.
public struct ExtensionState: Sendable {
    /// `request.content`: what iOS shows if the extension never calls its content handler.
    public let original: NotificationContent
    /// The content the extension is building; on expiry this is what a well-written extension delivers.
    public var bestAttemptContent: NotificationContent
    public var diagnostics: [Diagnostic] = []
    /// Attachment files waiting for the system's validation, by attachment identifier.
    public var stagedAttachments: [StagedAttachment] = []
    /// An attachment was asked for (Firebase: `fcm_options.image` is set), so a missing one is a failure.
    public var mediaRequested = false
    /// Milliseconds spent in named parts of the extension's work, such as "download".
    public var timings: [String: Double] = [:]
    /// How much the process's resident memory grew while the extension ran, where it could be measured.
    public var memoryPeakBytes: Int?
    /// What an app's own extension did (requests, log, files, handler calls, memory), for the result.
    public var activity = ExtensionActivity()
    /// The SDK helper the command line's built-in extension ran, and why (nil for an app's own extension).
    public var helper: HelperChoice?
    /// What the runner decided from the original content before the run (`ExtensionRunner.plan`), made once per push.
    public var plan = ExtensionPlan()

    public init(original: NotificationContent) {
        self.original = original
        self.bestAttemptContent = original
    }
}

/// What the extension may use: the device's rules, its deadline, and the network.
public struct ExtensionContext: Sendable {
    public var profile: DeviceProfile
    /// When iOS calls `serviceExtensionTimeWillExpire()`.
    public var deadline: ContinuousClock.Instant
    public var fetcher: MediaFetcher
    /// The clock the deadline is on: the harness schedules the expiry call and waits for the content handler on it.
    package var clock: any PipelineClock = SystemClock()
    /// A private folder for downloads: removed after the run, or emptied and handed to a batch's next push.
    public var workDirectory: URL

    /// The folders inside `workDirectory` where the content handler's call takes the attachment files, as iOS
    /// takes them into its data store: `AttachmentDataStore-0` for the first attachment, and so on, one folder each
    /// so every file keeps its own name. A batch keeps them (emptied) when it reuses a work folder.
    public static let attachmentStoreName = "AttachmentDataStore"

    /// The store's folder for the attachment at `index`.
    public static func attachmentStoreFolder(_ index: Int) -> String {
        "\(attachmentStoreName)-\(index)"
    }

    /// Whether `name` is one of the store's folder names.
    public static func isAttachmentStoreFolder(_ name: String) -> Bool {
        guard name.hasPrefix(attachmentStoreName + "-") else { return false }
        let number = name.utf8.dropFirst(attachmentStoreName.utf8.count + 1)
        return !number.isEmpty && number.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    public init(profile: DeviceProfile, deadline: ContinuousClock.Instant, fetcher: MediaFetcher, workDirectory: URL) {
        self.profile = profile
        self.deadline = deadline
        self.fetcher = fetcher
        self.workDirectory = workDirectory
    }
}

/// What a runner decides from the original content alone, before it runs: made once per push (ahead of its turn in a
/// batch) and handed to the run in `ExtensionState.plan`.
public struct ExtensionPlan: Sendable {
    /// The SDK helper that will run, and why (the command line's built-in extension; nil for an app's own code).
    public var helper: HelperChoice?
    /// Findings of that choice (several SDKs' keys), reported with the run's.
    public var findings: [Diagnostic] = []
    /// The download the extension is certain to make, when that is known before it runs (a built-in helper reads
    /// its URL from the payload; an app's own code is not predicted): a batch starts it for pushes still queued
    /// (`BatchRunner.readAhead`), and the push then waits for it as for any download the batch shares.
    public var download: PlannedDownload?
    /// Firebase's helper's decision on the push's image request (the URL it downloads, or why none), made once
    /// from the checks' request: the helper's run takes it instead of reading the payload again.
    package var image: FirebaseImageHelper.Decision?

    public init(helper: HelperChoice? = nil, findings: [Diagnostic] = [], download: PlannedDownload? = nil) {
        self.helper = helper
        self.findings = findings
        self.download = download
    }
}

/// How the extension's run ended, which decides what the phone shows.
public enum ExtensionDelivery: Sendable, Equatable {
    /// The content handler was called with `state.bestAttemptContent` in time.
    case delivered
    /// Time ran out and `serviceExtensionTimeWillExpire()` delivered `state.bestAttemptContent`.
    case expired
    /// The content handler was never called: iOS shows the original content.
    case neverDelivered
}

/// Runs a service extension on one push, between iOS handing it the request and showing the content.
///
/// On return, `state.bestAttemptContent` is the content handed to the content handler, and
/// `state.stagedAttachments` the files behind its attachments, for the system to validate.
public protocol ExtensionRunner: Sendable {
    func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery
    /// True when the extension changes the text, so a push that never reaches it loses those changes.
    var changesContent: Bool { get }
    /// True when the run must have the process to itself (to measure process-wide memory): the pipeline waits
    /// for other runs to finish first (`ConcurrentRuns`).
    var needsProcessAlone: Bool { get }
    /// What the runner decides from `original` before it runs (`ExtensionPlan`), with what the checks read from the
    /// push (`checks.imageRequest`); the pipeline asks once per push.
    func plan(for original: NotificationContent, checks: CheckReport, profile: DeviceProfile) -> ExtensionPlan
}

extension ExtensionRunner {
    public var changesContent: Bool { false }
    public var needsProcessAlone: Bool { false }
    public func plan(for original: NotificationContent, checks: CheckReport, profile: DeviceProfile) -> ExtensionPlan { ExtensionPlan() }
}
