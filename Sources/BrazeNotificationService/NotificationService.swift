@_exported import UserNotifications
import Foundation
import NSEPush
import Synchronization

/// Braze's notification service extension, as apps use it: `class NotificationService:
/// BrazeNotificationService.NotificationService {}`.
///
/// The rules are those of Braze's open-source service extension (Appboy/appboy-ios-sdk,
/// `Example/StopwatchNotificationService/NotificationService.m`): the attachment is `ab.att.url`, saved with the
/// suffix "." + `ab.att.type` (both required); any failure, and the expiry call, deliver the ORIGINAL content.
/// The BrazeNotificationService framework itself ships as a binary, so that it keeps these rules is assumed
/// (docs/sdks.md); its public API (`NotificationService`, `brazeHandle(request:contentHandler:)`) is the one
/// documented in braze-inc/braze-swift-sdk.
open class NotificationService: UNNotificationServiceExtension {
    /// The push in progress, for the expiry call; set in `didReceive`, read on the expiry thread.
    private let current = Mutex<BrazeRichPush?>(nil)

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let push = BrazeRichPush.start(request, contentHandler: contentHandler) else {
            // Not a Braze push: the service passes the content through.
            contentHandler(request.content)
            return
        }
        current.withLock { $0 = push }
    }

    open override func serviceExtensionTimeWillExpire() {
        current.withLock { $0 }?.expire()
    }
}

/// Asks Braze to handle the request: true when it is a Braze push (Braze then calls `contentHandler` itself),
/// false otherwise (the caller must call it). An extension that calls this from its own class decides itself what
/// its `serviceExtensionTimeWillExpire()` delivers.
@discardableResult
public func brazeHandle(request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) -> Bool {
    BrazeRichPush.start(request, contentHandler: contentHandler) != nil
}

/// One Braze push being handled: its download, and the one content handler call.
///
/// `@unchecked Sendable`: the stored properties are set once in `init`; `state` is guarded by its Mutex. The content
/// objects are shared between the download thread and the expiry thread as on iOS.
final class BrazeRichPush: @unchecked Sendable {
    private let original: UNNotificationContent
    private let bestAttempt: UNMutableNotificationContent
    private let contentHandler: (UNNotificationContent) -> Void
    private let environment: ExtensionEnvironment?
    private let state = Mutex(State())

    private struct State {
        var delivered = false
        var session: URLSession?
    }

    /// The payload's Braze keys, read as the SDK reads them (Appboy/appboy-ios-sdk,
    /// `Example/StopwatchNotificationService/NotificationService.m`).
    enum Keys {
        static let braze = SDKDescriptor.braze.mediaKey
        static let attachment = "att"
        static let url = "url"
        static let type = "type"
    }

    private init(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void, environment: ExtensionEnvironment?) {
        original = request.content
        bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent ?? UNMutableNotificationContent()
        self.contentHandler = contentHandler
        self.environment = environment
    }

    /// Starts handling `request`; nil when it is not a Braze push (no `ab` dictionary).
    static func start(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) -> BrazeRichPush? {
        let environment = ExtensionEnvironment.current ?? request.content.environment
        guard let braze = request.content.userInfo[Keys.braze] as? [AnyHashable: Any] else {
            environment?.record(.info(.sdkBrazeNotBraze, "The payload has no `ab` dictionary, so it is not a Braze push: Braze's NotificationService delivers the content unchanged (brazeHandle returns false)."))
            return nil
        }
        let push = BrazeRichPush(request, contentHandler: contentHandler, environment: environment)
        push.run(braze)
        return push
    }

    private func run(_ braze: [AnyHashable: Any]) {
        guard let attachment = braze[Keys.attachment] else {
            environment?.record(.info(.mediaNone, "The Braze push has no `ab.att`: nothing to attach; Braze delivers the original content."))
            deliverOriginal(because: nil)
            return
        }
        environment?.noteImageRequested()
        let fields = attachment as? [AnyHashable: Any]
        guard let urlText = fields?[Keys.url] as? String else {
            environment?.record(.error(.sdkBrazeAttachmentKeys, "`ab.att.url` is missing or not a string (`ab.att` is \(Self.describe(attachment))): Braze attaches nothing and delivers the original content."))
            deliverOriginal(because: nil)
            return
        }
        guard let type = fields?[Keys.type] as? String else {
            environment?.record(.error(.sdkBrazeAttachmentKeys, "`ab.att.type` is missing or not a string: Braze names the downloaded file with \".\" + type (\"jpg\", \"png\", \"gif\", \"mp4\"), so without it Braze attaches nothing and delivers the original content. Braze's dashboard sets it; a payload built by hand must too."))
            deliverOriginal(because: nil)
            return
        }
        guard let url = URL(string: urlText) else {
            environment?.record(.error(.mediaInvalidURL, "`ab.att.url` \"\(urlText)\" is not a URL: Braze delivers the original content."))
            deliverOriginal(because: nil)
            return
        }
        let session = URLSession(configuration: .default)
        state.withLock { $0.session = session }
        session.downloadTask(with: url) { location, _, error in
            guard error == nil, let location else {
                // The network finding itself (ATS, DNS, time) is recorded by the URLSession stand-in.
                self.deliverOriginal(because: "the download failed")
                return
            }
            // The SDK appends the type to the download's own path; a type such as "jpeg?x" makes the file unusable.
            let typed = URL(fileURLWithPath: location.path + "." + type)
            do {
                try FileManager.default.moveItem(at: location, to: typed)
                let attachment = try UNNotificationAttachment(identifier: "", url: typed, options: nil)
                self.bestAttempt.attachments = [attachment]
                self.deliver(self.bestAttempt)
                session.finishTasksAndInvalidate()
            } catch {
                // UNNotificationAttachment recorded why (UNError 101/102).
                self.deliverOriginal(because: "the file saved as .\(type) could not be attached")
            }
        }.resume()
    }

    /// iOS is about to end the extension: Braze cancels the download and delivers the original content, not a
    /// best attempt.
    func expire() {
        let session = state.withLock { $0.session }
        session?.invalidateAndCancel()
        deliverOriginal(because: "iOS called serviceExtensionTimeWillExpire() before the download finished")
    }

    private func deliverOriginal(because reason: String?) {
        deliver(original) {
            guard let reason else { return }
            self.environment?.record(.warning(.sdkBrazeOriginalContent, "Braze delivered the ORIGINAL content (no image, and no change made to the content before Braze got it) because \(reason). Braze's open-source extension does this on every failure and on expiry; that the closed-source BrazeNotificationService does the same is assumed."))
        }
    }

    /// Calls the content handler once (a cancelled download's callback after the expiry call must not call it
    /// again), after `note` has recorded why, when this is the call that counts.
    private func deliver(_ content: UNNotificationContent, note: () -> Void = {}) {
        let first = state.withLock { state in
            defer { state.delivered = true }
            return !state.delivered
        }
        guard first else { return }
        note()
        contentHandler(content)
    }

    private static func describe(_ value: Any) -> String {
        if let text = value as? String { return "the string \"\(text.prefix(80))\"" }
        if value is [AnyHashable: Any] { return "a dictionary" }
        return "\(type(of: value))"
    }
}
