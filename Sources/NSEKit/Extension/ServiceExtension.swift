import Foundation

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
    /// Milliseconds spent per named stage.
    public var timings: [String: Double] = [:]

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
    /// A private folder for downloads, removed after the run.
    public var workDirectory: URL
}

/// Thrown by a step that is still waiting when the time budget runs out.
public struct TimeBudgetExpired: Error, Sendable {
    public init() {}
}

/// One piece of an extension's `didReceive(_:withContentHandler:)`: content changes, an SDK's media helper...
///
/// Steps run in order on the same best-attempt content. A new SDK's helper is a new step.
public protocol ExtensionStep: Sendable {
    /// A short name for timings and reports, such as "firebase".
    var name: String { get }
    func run(_ state: inout ExtensionState, context: ExtensionContext) async throws(TimeBudgetExpired)
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
}

extension ExtensionRunner {
    public var changesContent: Bool { false }
}

/// A service extension made of steps, delivering its best attempt on expiry as Apple's template does.
public struct ServiceExtension: ExtensionRunner {
    public var steps: [any ExtensionStep]

    public init(steps: [any ExtensionStep]) {
        self.steps = steps
    }

    public var changesContent: Bool {
        steps.contains { ($0 as? ContentChanges).map { !$0.isEmpty } ?? false }
    }

    /// Runs every step on `state`, stopping when one reports that time ran out.
    public func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
        for step in steps {
            let started = ContinuousClock.now
            defer { state.timings[step.name] = started.duration(to: .now).milliseconds }
            do {
                try await step.run(&state, context: context)
            } catch {
                // Apple's template delivers bestAttemptContent, without the attachment not yet added.
                return .expired
            }
        }
        return .delivered
    }
}

extension Duration {
    /// The duration in milliseconds, as reports print it.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
