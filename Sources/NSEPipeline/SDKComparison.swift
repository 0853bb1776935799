import Foundation
import NSEPush

/// `nse process --sdk all`: what every helper of the build shows for one payload, side by side, the way a team
/// migrating from one SDK to another needs to see it.
package struct SDKComparison: Sendable, Codable {
    package var input: String
    package var inputKind: InputKind?
    /// The helper `--sdk auto` runs for this payload; its verdict is the comparison's exit status.
    package var detected: HelperChoice
    /// Detection's own finding (`sdk.detect.ambiguous`), if any.
    package var detection: [Diagnostic] = []
    /// One row per SDK, in `PushSDK` order.
    package var helpers: [Row] = []

    package init(input: String, detected: HelperChoice) {
        self.input = input
        self.detected = detected
    }

    /// What one helper makes of the payload.
    package struct Row: Sendable, Codable {
        package var sdk: PushSDK
        /// Always true: every SDK's stand-in is in the build. Kept so `--sdk all`'s JSON keeps its shape.
        package var available = true
        package var outcome: Outcome?
        package var imageShown: Bool?
        /// Each attachment the phone shows: its type and size ("public.jpeg 600x300").
        package var attachments: [String] = []
        package var title: String?
        package var subtitle: String?
        package var body: String?
        package var badge: Int?
        package var category: String?
        /// Why this helper shows no image (or what it warns of): its first error, else its first warning.
        package var reason: Diagnostic?
        /// Every warning and error code of the run.
        package var codes: [DiagnosticCode] = []
        package var exitStatus: Int32?

        package init(sdk: PushSDK, result: ProcessResult, strict: Bool) {
            self.sdk = sdk
            outcome = result.outcome
            imageShown = result.imageShown
            if let content = result.content {
                attachments = content.attachments.map { attachment in
                    var text = attachment.type
                    if let width = attachment.width, let height = attachment.height { text += " \(width)x\(height)" }
                    return text
                }
                title = content.title
                subtitle = content.subtitle
                body = content.body
                badge = content.badge
                category = content.categoryIdentifier.isEmpty ? nil : content.categoryIdentifier
            }
            // Detection's warning is the comparison's, not this helper's.
            let findings = result.verdictDiagnostics.filter { $0.severity != .info && $0.code != .sdkDetectAmbiguous }
            reason = findings.first { $0.severity == .error } ?? findings.first
            codes = findings.map(\.code)
            exitStatus = result.exitStatus(strict: strict)
        }
    }

    /// The detected helper's exit status; 1 when that helper is not in this build (not checked is not a pass).
    package var exitStatus: Int32 {
        guard let row = helpers.first(where: { $0.sdk == detected.sdk }) else { return 1 }
        return row.exitStatus ?? 1
    }

    /// Sets `detected` from the file's payload, as `--sdk auto` would choose.
    package mutating func detect(from file: URL) {
        guard let push = try? PushReader.read(file) else {
            detected = HelperChoice(sdk: .firebase, selection: .default, reason: "the file could not be read")
            return
        }
        let (choice, warning) = SDKDetection.choose(for: push.userInfo)
        detected = choice
        detection = warning.map { [$0] } ?? []
    }
}
