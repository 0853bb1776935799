/// How the notification ends up on the phone.
public enum Outcome: String, Sendable, Codable {
    /// The extension ran and its content is shown, with the image if one was asked for.
    case modified
    /// The extension ran and its content is shown, but the requested image is not.
    case modifiedWithoutAttachment = "modified-without-attachment"
    /// iOS did not run the extension (or it never delivered): the payload's own content is shown.
    case original
    /// Time ran out: the best-attempt content is shown, without the image.
    case bestAttempt = "best-attempt"
    /// APNs or the emulator refused the input: nothing is shown.
    case rejected
    /// The iOS side was not emulated (`--platform android`): see `android`.
    case notEmulated = "not-emulated"
    /// iOS hands the push to something other than Notification Center (ActivityKit, WidgetKit, PushKit, the
    /// app woken in the background) or it carries nothing for iOS: no notification content to show.
    case notDisplayed = "not-displayed"
}

/// Everything the emulator found about one push: the stable JSON result documented in the README.
public struct ProcessResult: Sendable, Codable, VerdictReport {
    public var input: String
    public var inputKind: InputKind?
    public var extensionInvoked: Bool
    public var outcome: Outcome
    /// Would the phone display an image (any attachment that survives the system's validation)?
    public var imageShown: Bool
    /// What the phone displays; nil when nothing is displayed (rejected).
    public var content: NotificationContent?
    public var diagnostics: [Diagnostic]
    /// Milliseconds per stage.
    public var timings: [String: Double]
    /// How much the process's peak memory grew while the extension ran (the harness measures it when
    /// extensions run one at a time); absent when not measured.
    public var extensionMemoryBytes: Int?
    /// What an app's own extension did: its requests, log, files, handler calls and memory (the harness);
    /// absent for the command line's built-in extension and when no extension ran.
    public var extensionActivity: ExtensionActivity? = nil

    /// Which SDK's helper the built-in extension ran and why (`--sdk`); absent for an app's own extension
    /// (`nse extension` sets it from the SDK module the extension imports) and when no extension ran.
    public var helper: HelperChoice? = nil

    /// The Android side of an FCM message (`--platform android|both`); absent otherwise.
    public var android: AndroidResult? = nil
    /// Where iOS hands the push (`notification-center`, `activitykit`, `widgetkit`...); absent when unread.
    public var destination: Destination? = nil

    /// True when the file itself could not be read (or nse crashed on it), as opposed to read and found wanting.
    public var inputUnreadable: Bool { verdict == .notChecked }

    /// Both platforms' findings count: an Android error fails verification too.
    public var verdictDiagnostics: [Diagnostic] {
        diagnostics + (android?.diagnostics ?? [])
    }
}
