import NSEMedia
import NSEPush

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
///
/// Its fields live on the heap and are copied on write (`CopyOnWrite`): async functions keep every copy of a result
/// in their frames, and a batch holds hundreds of pushes waiting on the network.
public struct ProcessResult: Sendable, Codable, VerdictReport {
    /// The stored fields; their names are the JSON's keys.
    struct Fields: Sendable, Codable {
        var input: String
        var inputKind: InputKind?
        var extensionInvoked: Bool
        var outcome: Outcome
        var imageShown: Bool
        var content: NotificationContent?
        var diagnostics: [Diagnostic]
        var timings: [String: Double]
        var extensionMemoryBytes: Int?
        var extensionActivity: ExtensionActivity? = nil
        var helper: HelperChoice? = nil
        var android: AndroidResult? = nil
        var destination: Destination? = nil
    }

    private var fields: CopyOnWrite<Fields>

    public init(
        input: String, inputKind: InputKind?, extensionInvoked: Bool, outcome: Outcome, imageShown: Bool,
        content: NotificationContent?, diagnostics: [Diagnostic], timings: [String: Double]
    ) {
        fields = CopyOnWrite(Fields(
            input: input, inputKind: inputKind, extensionInvoked: extensionInvoked, outcome: outcome, imageShown: imageShown,
            content: content, diagnostics: diagnostics, timings: timings))
    }

    /// The same JSON as the fields alone: the box does not show.
    public init(from decoder: any Decoder) throws {
        fields = CopyOnWrite(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try fields.value.encode(to: encoder)
        // Derived, never decoded: the verdict the exit status comes from and the headline made from it.
        var derived = encoder.container(keyedBy: DerivedKeys.self)
        try derived.encode(verdict, forKey: .verdict)
        try derived.encode(headline.line, forKey: .headline)
    }

    private enum DerivedKeys: String, CodingKey {
        case verdict, headline
    }

    // The fields, each read and changed in place in its box. Not inlined: inlined into an async function, an
    // accessor's temporaries take room in its frame, which then grows more than the box saves.
    public var input: String {
        @inline(never) get { fields.value.input }
        @inline(never) _modify { yield &fields.value.input }
    }
    public var inputKind: InputKind? {
        @inline(never) get { fields.value.inputKind }
        @inline(never) _modify { yield &fields.value.inputKind }
    }
    public var extensionInvoked: Bool {
        @inline(never) get { fields.value.extensionInvoked }
        @inline(never) _modify { yield &fields.value.extensionInvoked }
    }
    public var outcome: Outcome {
        @inline(never) get { fields.value.outcome }
        @inline(never) _modify { yield &fields.value.outcome }
    }
    /// Would the phone display an image (any attachment that survives the system's validation)?
    public var imageShown: Bool {
        @inline(never) get { fields.value.imageShown }
        @inline(never) _modify { yield &fields.value.imageShown }
    }
    /// What the phone displays; nil when nothing is displayed (rejected).
    public var content: NotificationContent? {
        @inline(never) get { fields.value.content }
        @inline(never) _modify { yield &fields.value.content }
    }
    public var diagnostics: [Diagnostic] {
        @inline(never) get { fields.value.diagnostics }
        @inline(never) _modify { yield &fields.value.diagnostics }
    }
    /// Milliseconds per stage.
    public var timings: [String: Double] {
        @inline(never) get { fields.value.timings }
        @inline(never) _modify { yield &fields.value.timings }
    }
    /// How much the process's peak memory grew while the extension ran (the harness measures it when
    /// extensions run one at a time); absent when not measured.
    public var extensionMemoryBytes: Int? {
        @inline(never) get { fields.value.extensionMemoryBytes }
        @inline(never) _modify { yield &fields.value.extensionMemoryBytes }
    }
    /// What an app's own extension did: its requests, log, files, handler calls and memory (the harness);
    /// absent for the command line's built-in extension and when no extension ran.
    public var extensionActivity: ExtensionActivity? {
        @inline(never) get { fields.value.extensionActivity }
        @inline(never) _modify { yield &fields.value.extensionActivity }
    }
    /// Which SDK's helper the built-in extension ran and why (`--sdk`); absent for an app's own extension
    /// (`nse extension` sets it from the SDK module the extension imports) and when no extension ran.
    public var helper: HelperChoice? {
        @inline(never) get { fields.value.helper }
        @inline(never) _modify { yield &fields.value.helper }
    }
    /// The Android side of an FCM message (`--platform android|both`); absent otherwise.
    public var android: AndroidResult? {
        @inline(never) get { fields.value.android }
        @inline(never) _modify { yield &fields.value.android }
    }
    /// Where iOS hands the push (`notification-center`, `activitykit`, `widgetkit`...); absent when unread.
    public var destination: Destination? {
        @inline(never) get { fields.value.destination }
        @inline(never) _modify { yield &fields.value.destination }
    }

    /// True when nse could not judge the push (the file could not be read, nse crashed on it, or libcurl could not
    /// be loaded), as opposed to judged and found wanting. Named for the first.
    public var inputUnreadable: Bool { verdict == .notChecked }

    /// Both platforms' findings count: an Android error fails verification too.
    public var verdictDiagnostics: [Diagnostic] {
        diagnostics + (android?.diagnostics ?? [])
    }
}
