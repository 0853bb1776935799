// The CocoaPods framework's umbrella header (`notification-extension/IterableAppExtensions.h`) imports UIKit, which
// Swift sees re-exported (and Foundation with it); the Swift sources import UserNotifications, which apps name
// beside it. This stand-in re-exports both, so a file written for either integration compiles.
@_exported import UIKit
@_exported import UserNotifications
import Foundation
import NSEPush
import Synchronization

/// The payload's key names (`notification-extension/NotificationExtensionConstants.swift`): public namespaces whose
/// members are internal to the SDK.
public enum JsonKey {
    public enum ActionButton {}
    public enum Payload {}
}

/// Lets an app handle the pushes that are not Iterable's (no `itbl` key) itself.
public protocol ITBNotificationServiceExtensionDelegate {
    func notificationServiceDidReceive(_ request: UNNotificationRequest, bestAttemptContent: UNMutableNotificationContent, contentHandler: @escaping (UNNotificationContent) -> Void)
}

/// Iterable's Notification Service Extension (Iterable/swift-sdk, `notification-extension/`), subclassed by apps:
/// `class NotificationService: ITBNotificationServiceExtension {}`.
///
/// Read in source: the image is `itbl.attachment-url`, saved as a UUID followed by the response's suggested file
/// name (else the URL's last path component) and APPENDED to the content's attachments; the category is the
/// payload's own, else `itbl.messageId`, registered with the buttons of `itbl.actionButtons`; the handler gets the
/// best attempt once both are done, on any failure, and on expiry.
open class ITBNotificationServiceExtension: UNNotificationServiceExtension {
    /// Set by the app (before any push) to handle non-Iterable pushes. Written once at start-up, as on iOS.
    nonisolated(unsafe) public static var itblNotificationDelegate: ITBNotificationServiceExtensionDelegate?

    private let inProgress = Mutex<IterableRichPush?>(nil)

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let push = IterableRichPush(request, contentHandler: contentHandler)
        inProgress.withLock { $0 = push }
        push.run(delegate: Self.itblNotificationDelegate)
    }

    open override func serviceExtensionTimeWillExpire() {
        inProgress.withLock { $0 }?.expire()
    }
}

/// One push handled by `ITBNotificationServiceExtension`.
///
/// `@unchecked Sendable`: the `let`s are set once in `init`; `state` is guarded by its Mutex; the content is shared
/// between the download's callback and the expiry call as on iOS.
final class IterableRichPush: @unchecked Sendable {
    enum Keys {
        static let metadata = SDKDescriptor.iterable.mediaKey
        static let messageId = "messageId"
        static let attachmentURL = "attachment-url"
        static let actionButtons = "actionButtons"
    }

    private let request: UNNotificationRequest
    private let bestAttempt: UNMutableNotificationContent
    private let contentHandler: (UNNotificationContent) -> Void
    private let environment: ExtensionEnvironment?
    private let state = Mutex(State())

    private struct State {
        var categoryFinished = false
        var attachmentFinished = false
        var task: URLSessionDownloadTask?
    }

    init(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.request = request
        bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent ?? UNMutableNotificationContent()
        self.contentHandler = contentHandler
        environment = ExtensionEnvironment.current ?? request.content.environment
    }

    private var metadata: [AnyHashable: Any]? { request.content.userInfo[Keys.metadata] as? [AnyHashable: Any] }

    func run(delegate: ITBNotificationServiceExtensionDelegate?) {
        let isIterable = request.content.userInfo[Keys.metadata] != nil
        if let delegate, !isIterable {
            environment?.record(.info(.sdkIterableNotIterable, "The payload has no `itbl` key, so it is not an Iterable push: ITBNotificationServiceExtension hands it to the app's itblNotificationDelegate."))
            delegate.notificationServiceDidReceive(request, bestAttemptContent: bestAttempt, contentHandler: contentHandler)
            return
        }
        if !isIterable {
            environment?.record(.info(.sdkIterableNotIterable, "The payload has no `itbl` key, so it is not an Iterable push (and no itblNotificationDelegate is set): Iterable's extension still runs, finds no image and no messageId, and delivers the content with its own category, if any."))
        }
        resolveCategory()
        retrieveAttachment()
        // The SDK marks the category done 10 ms later, on the main queue: after everything above, as here.
        finish(\.categoryFinished)
    }

    /// The payload's category if it has one; else a category named after `itbl.messageId` with the payload's buttons.
    private func resolveCategory() {
        guard request.content.categoryIdentifier.isEmpty else { return }
        guard let messageId = metadata?[Keys.messageId] as? String else {
            bestAttempt.categoryIdentifier = ""
            return
        }
        let category = UNNotificationCategory(identifier: messageId, actions: actions(), intentIdentifiers: [], options: [])
        let center = UNUserNotificationCenter.current()
        center.getNotificationCategories { categories in
            var updated = categories
            updated.insert(category)
            center.setNotificationCategories(updated)
        }
        bestAttempt.categoryIdentifier = messageId
        environment?.record(.info(.sdkIterableCategory, "Iterable registered the category \(category.summary) and set the notification's categoryIdentifier to itbl.messageId, so the phone shows \(category.actions.isEmpty ? "no buttons" : "these buttons")."))
    }

    /// The buttons of `itbl.actionButtons`; one without an identifier or title is dropped, as the SDK drops it.
    private func actions() -> [UNNotificationAction] {
        guard let buttons = metadata?[Keys.actionButtons] as? [[AnyHashable: Any]] else { return [] }
        return buttons.enumerated().compactMap { index, button in
            guard let identifier = button["identifier"] as? String, let title = button["title"] as? String else {
                environment?.record(.warning(.sdkIterableActionButton, "itbl.actionButtons[\(index)] has no string `identifier` or `title`: Iterable leaves the button out."))
                return nil
            }
            let buttonType = button["buttonType"] as? String
            // Absent means true for openApp and false for requiresUnlock; only a number counts as a value.
            let openApp = (button["openApp"] as? NSNumber)?.boolValue ?? true
            let requiresUnlock = (button["requiresUnlock"] as? NSNumber)?.boolValue ?? false
            var options: UNNotificationActionOptions = []
            if buttonType == "destructive" { options.insert(.destructive) }
            if openApp { options.insert(.foreground) }
            if requiresUnlock || openApp { options.insert(.authenticationRequired) }
            let icon = (button["actionIcon"] as? [AnyHashable: Any]).flatMap(Self.icon)
            if buttonType == "textInput" {
                return UNTextInputNotificationAction(
                    identifier: identifier, title: title, options: options, icon: icon,
                    textInputButtonTitle: button["inputTitle"] as? String ?? "", textInputPlaceholder: button["inputPlaceholder"] as? String ?? "")
            }
            return UNNotificationAction(identifier: identifier, title: title, options: options, icon: icon)
        }
    }

    private static func icon(_ json: [AnyHashable: Any]) -> UNNotificationActionIcon? {
        guard let name = json["imageName"] as? String else { return nil }
        switch json["iconType"] as? String {
        case "systemImage": return UNNotificationActionIcon(systemImageName: name)
        case "templateImage": return UNNotificationActionIcon(templateImageName: name)
        default: return nil
        }
    }

    private func retrieveAttachment() {
        guard let metadata, let value = metadata[Keys.attachmentURL] else {
            environment?.record(.info(.mediaNone, "No `itbl.attachment-url`: Iterable's extension has nothing to attach."))
            finish(\.attachmentFinished)
            return
        }
        environment?.noteImageRequested()
        guard let text = value as? String, let url = URL(string: text) else {
            environment?.record(.error(.sdkIterableAttachmentURL, "`itbl.attachment-url` is \(value is String ? "not a URL" : "not a string"): Iterable attaches nothing."))
            finish(\.attachmentFinished)
            return
        }
        let task = URLSession.shared.downloadTask(with: url) { location, response, error in
            self.downloaded(location: error == nil ? location : nil, response: response)
        }
        state.withLock { $0.task = task }
        task.resume()
    }

    private func downloaded(location: URL?, response: URLResponse?) {
        guard let location, let response, let responseURL = response.url else {
            // The URLSession stand-in recorded why (or the expiry call cancelled it).
            finish(\.attachmentFinished)
            return
        }
        let name = UUID().uuidString + (response.suggestedFilename ?? responseURL.lastPathComponent)
        // FileManager.default.temporaryDirectory on iOS is the extension's own: the run's folder here.
        let folder = location.deletingLastPathComponent()
        let file = folder.appendingPathComponent(name)
        do {
            try FileManager.default.moveItem(at: location, to: file)
            // UNNotificationAttachment records why it throws.
            let attachment = try UNNotificationAttachment(identifier: name, url: file, options: nil)
            bestAttempt.attachments.append(attachment)
            contentHandler(bestAttempt)
        } catch {
            finish(\.attachmentFinished)
        }
    }

    /// Marks one part done; when both are, the handler gets the best attempt (the SDK's
    /// `checkPushCreationCompletion`). Each part is marked once, so this delivers once.
    private func finish(_ part: WritableKeyPath<State, Bool>) {
        let complete = state.withLock { state in
            state[keyPath: part] = true
            return state.categoryFinished && state.attachmentFinished
        }
        if complete { deliverBestAttempt() }
    }

    /// The expiry call: the download is cancelled and the best attempt delivered. The cancelled download's
    /// callback then finishes its part and delivers again, as the SDK does (iOS ignores the second call).
    func expire() {
        deliverBestAttempt()
    }

    private func deliverBestAttempt() {
        let task = state.withLock { state in
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
        contentHandler(bestAttempt)
    }
}
