import NSEPipeline
import NSEPush

/// What a batch keeps of each result once it is saved: enough for the summary, the progress lines and JUnit,
/// so the batch's memory does not grow with whole results (those go to disk as they complete).
public struct BatchEntry: Sendable, Hashable, Codable {
    /// The input file's path.
    public var input: String
    /// Its result folder under `--out`, relative to it.
    public var outputPath: String
    public var outcome: Outcome
    public var imageShown: Bool
    /// The image URL the push asks its helper for (`fcm_options.image`, OneSignal's `att`...), if any.
    public var imageURL: String?
    /// Which SDK's helper ran and why (absent when no extension ran).
    public var helper: HelperChoice?
    /// As for `nse process`: 0 passed, 1 failed verification, 2 unreadable.
    public var exitStatus: Int32
    /// The warnings and errors (infos are left to the full result).
    public var diagnostics: [Diagnostic]
    /// The whole pipeline for this push, in milliseconds.
    public var milliseconds: Double
    /// Time in Firebase's helper (download and attachment creation), when it ran.
    public var downloadMilliseconds: Double?

    /// `strict` (`--strict`): a push whose only findings are warnings fails (exit status 1).
    public init(_ result: ProcessResult, outputPath: String, strict: Bool = false) {
        input = result.input
        self.outputPath = outputPath
        outcome = result.outcome
        imageShown = result.imageShown
        imageURL = result.content.flatMap { SDKDetection.mediaURL(of: result.helper?.sdk ?? .firebase, in: $0.userInfo) }
        helper = result.helper
        exitStatus = result.exitStatus(strict: strict)
        diagnostics = result.verdictDiagnostics.filter { $0.severity != .info }
        milliseconds = result.timings["total"] ?? 0
        downloadMilliseconds = result.timings["extension.download"]
    }

    public var errors: [Diagnostic] {
        diagnostics.filter { $0.severity == .error }
    }

    public var warnings: [Diagnostic] {
        diagnostics.filter { $0.severity == .warning }
    }

    public var passed: Bool { exitStatus == 0 }
}
