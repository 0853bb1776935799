@_exported import Foundation
import NSEPush
import NSEMedia
import NSEPipeline
import UserNotifications

/// Firebase Messaging's entry points that a Notification Service Extension uses.
open class Messaging: NSObject, @unchecked Sendable {
    private static let shared = Messaging()

    public class func messaging() -> Messaging {
        shared
    }

    /// The helper an extension calls: `Messaging.serviceExtension().populateNotificationContent(...)`.
    public class func serviceExtension() -> MessagingExtensionHelper {
        MessagingExtensionHelper()
    }
}

/// `FIRMessagingExtensionHelper`, reproduced from the SDK's behaviour (firebase/firebase-ios-sdk,
/// `FirebaseMessaging/Sources/FIRMessagingExtensionHelper.m`): the
/// rules themselves live in NSEKit's `FirebaseImageHelper`, shared with the command line's built-in extension.
open class MessagingExtensionHelper: NSObject, @unchecked Sendable {
    /// Downloads `fcm_options.image`, attaches it (replacing any attachments), and calls the handler once.
    /// Every failure delivers the content without an image, as the SDK does; the reasons are recorded.
    open func populateNotificationContent(
        _ content: UNMutableNotificationContent,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let environment = content.environment ?? Self.standaloneEnvironment()
        let call = Call(content: content, handler: contentHandler)
        // The SDK downloads with a URLSession task and calls back on the session's queue: an executor job here,
        // and no thread at all while the download runs.
        environment.helper("nse.firebase") { done in
            Self.populate(call, environment: environment, done: done)
        }
    }

    /// Records what the SDK would export, stopping at the first missing field as it does (no network).
    open func exportDeliveryMetricsToBigQuery(withMessageInfo info: [AnyHashable: Any]) {
        let environment = ExtensionEnvironment.current
        let required: [(String, Int)] = [("google.c.sender.id", 2005), ("gcm.message_id", 2006), ("google.c.fid", 2007)]
        for (key, logCode) in required where (info[key] as? String)?.isEmpty ?? true {
            environment?.record(.warning(.firebaseDeliveryMetrics, "exportDeliveryMetricsToBigQuery found no `\(key)` in the message info: the SDK logs \(logCode) and exports nothing. Send the message through FCM so it carries the field."))
            return
        }
        environment?.record(.info(.firebaseDeliveryMetrics, "exportDeliveryMetricsToBigQuery would export this delivery (recorded, not sent)."))
    }

    /// The content and handler of one call, handed to the download task. The SDK hands them to URLSession's
    /// queue the same way; the extension owns any locking of its content.
    private struct Call: @unchecked Sendable {
        let content: UNMutableNotificationContent
        let handler: (UNNotificationContent) -> Void
    }

    private static func populate(_ call: Call, environment: ExtensionEnvironment, done: @escaping @Sendable () -> Void) {
        let folder = environment.makeWorkFolder()
        var context = environment.context
        context.workDirectory = folder
        // The helper reads the image request from the content it is handed, as the SDK reads its userInfo, unless
        // the built-in extension's plan already decided it from the push (the content's `fcm_options` unchanged);
        // the state only collects the helper's findings and files, so the content is not converted for it.
        let decision = environment.takePlannedImage()
            ?? FirebaseImageHelper.decide(ImageRequest.firebase(in: call.content.payload), profile: context.profile)
        FirebaseImageHelper().run(decision, state: ExtensionState(original: NotificationContent()), context: context) { outcome in
            let state = outcome.state
            environment.record(state.diagnostics)
            environment.record(timings: state.timings)
            // Time ran out: the SDK's download task is still waiting, so the handler is not called.
            guard !outcome.timedOut else { return done() }
            if state.mediaRequested { environment.noteImageRequested() }
            if let staged = state.stagedAttachments.first {
                call.content.attachments = [UNNotificationAttachment(staged: staged)]
            }
            environment.withCurrent { call.handler(call.content) }
            done()
        }
    }

    /// Content made outside a harness run still works: a default device profile and budget.
    private static func standaloneEnvironment() -> ExtensionEnvironment {
        let profile = DeviceProfile()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return ExtensionEnvironment(context: ExtensionContext(
            profile: profile, deadline: .now + profile.timeBudget, fetcher: MediaFetcher(profile: profile), workDirectory: folder))
    }
}

/// The helper under its Objective-C name, as extensions ported from Objective-C call it:
/// `FIRMessagingExtensionHelper().populateNotificationContent(content, withContentHandler: handler)`.
public typealias FIRMessagingExtensionHelper = MessagingExtensionHelper
public typealias FIRMessaging = Messaging
