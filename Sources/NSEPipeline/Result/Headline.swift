import NSEPush

/// The one line every renderer (text, JSON, HTML) heads a push with. Its first word comes from the verdict, the
/// same one the exit status comes from, so a headline can never say FAIL where the status says pass; the words
/// after it say what the phone shows.
public struct Headline: Sendable, Hashable, Codable {
    /// `OK`, `FAIL`, `REJECTED` (a failure where nothing reaches the phone) or `NOT CHECKED`.
    public var label: String
    /// What the phone shows, in a phrase: "extension ran, image shown".
    public var words: String

    public init(_ result: ProcessResult) {
        let verdict = result.verdict
        label = switch verdict {
        case .pass: "OK"
        case .fail: result.outcome == .rejected ? "REJECTED" : "FAIL"
        case .notChecked: "NOT CHECKED"
        }
        words = verdict == .notChecked ? "nse could not judge this push (the error below says why)" : Self.words(result)
    }

    /// `label: words`, as the text report prints it.
    public var line: String { "\(label): \(words)" }

    private static func words(_ result: ProcessResult) -> String {
        switch result.outcome {
        case .modified: result.imageShown ? "extension ran, image shown" : "extension ran (no image requested)"
        case .modifiedWithoutAttachment: "extension ran, but the image is NOT shown"
        case .original where result.extensionInvoked: "extension ran, but delivered nothing: the original content is shown"
        case .original: "extension not run: the payload's own content is shown"
        case .bestAttempt where result.imageShown:
            "the handler was called only when time ran out: the best-attempt content is shown with its image, after the wait"
        case .bestAttempt: "time ran out: best-attempt content shown, no image"
        case .rejected: "nothing reaches the phone"
        case .notEmulated: "iOS not emulated (--platform android)"
        case .notDisplayed: result.destination == .nowhere || result.destination == nil
            ? "not displayed: the message carries nothing for iOS to show (no `aps`)"
            : "not displayed: iOS hands the push to \(result.destination?.rawValue ?? ""), not to Notification Center"
        }
    }
}

extension ProcessResult {
    /// The push's headline, from its verdict.
    public var headline: Headline { Headline(self) }
}
