import Foundation
import NSEPush
import Synchronization
import UserNotifications

/// One request's work, as Pushwoosh's `PWNotificationServiceProcessor` does it (Pushwoosh iOS SDK 7.1): for a
/// push with `pw_msg`, the badge from `aps.pw_badge`, the delivery event and the `attachment` download, then the
/// best attempt is delivered once, whichever of the end of that work or the expiry call comes first.
final class PWNotificationServiceProcessor: Sendable {
    /// Unchecked: the content and handler are only touched under `state`'s lock (Pushwoosh's serial queue).
    private struct State: @unchecked Sendable {
        var content: UNMutableNotificationContent?
        var handler: ((UNNotificationContent) -> Void)?
        var started = false
    }

    private let state: Mutex<State>
    private let request: UNNotificationRequest
    private let appGroupsName: String?

    init(request: UNNotificationRequest, appGroupsName: String?, completion: @escaping (UNNotificationContent) -> Void) {
        self.request = request
        self.appGroupsName = appGroupsName
        state = Mutex(State(content: request.content.mutableCopy() as? UNMutableNotificationContent, handler: completion))
    }

    /// Starts the work once; the content handler is called when it is done.
    func process() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let environment = ExtensionEnvironment.current
        let userInfo = request.content.userInfo
        guard userInfo[SDKDescriptor.pushwoosh.marker] != nil else {
            environment?.record(PushwooshFindings.notPushwoosh(hasAttachment: userInfo[SDKDescriptor.pushwoosh.mediaKey] != nil))
            consume()
            return
        }
        if let badge = badge(environment) {
            state.withLock { $0.content?.badge = NSNumber(value: badge) }
        }
        environment?.record(PushwooshFindings.deliveryEvent(hash: userInfo["p"] as? String, metadata: userInfo["md"] != nil))
        downloadAttachment(environment) { self.consume() }
    }

    /// The expiry call: deliver what is there now.
    func expire() {
        consume()
    }

    private func consume() {
        let (content, handler) = state.withLock { state in
            defer { state.handler = nil }
            return (state.content, state.handler)
        }
        if let content, let handler { handler(content) }
    }

    /// `aps.pw_badge` ("5", "+1", "-2", or a number) applied to the count kept in the App Group's defaults under
    /// `badge_count`; nil when there is no App Group or no `pw_badge`.
    private func badge(_ environment: ExtensionEnvironment?) -> Int? {
        guard let aps = request.content.userInfo["aps"] as? [String: Any], let raw = aps[SDKDescriptor.pushwooshBadgeKey] else { return nil }
        let text = (raw as? String) ?? "\(raw)"
        guard let group = appGroupsName, !group.isEmpty else {
            environment?.record(PushwooshFindings.badgeWithoutAppGroup(text))
            return nil
        }
        let sign = text.first.flatMap { $0 == "+" || $0 == "-" ? String($0) : nil } ?? ""
        let amount = PushwooshFindings.integerValue(String(text.dropFirst(sign.count)))
        let defaults = UserDefaults(suiteName: group)
        let saved = defaults?.integer(forKey: "badge_count") ?? 0
        let badge = switch sign {
        case "+": saved + amount
        case "-": max(saved - amount, 0)
        default: amount
        }
        defaults?.set(badge, forKey: "badge_count")
        environment?.record(PushwooshFindings.badge(text, saved: saved, badge: badge, group: group))
        return badge
    }

    private func downloadAttachment(_ environment: ExtensionEnvironment?, then done: @escaping @Sendable () -> Void) {
        guard let value = request.content.userInfo[SDKDescriptor.pushwoosh.mediaKey] else { return done() }
        environment?.noteImageRequested()
        guard let text = value as? String, let url = URL(string: text) else {
            environment?.record(PushwooshFindings.attachmentNotURL)
            return done()
        }
        let folder = environment?.makeWorkFolder() ?? FileManager.default.temporaryDirectory
        URLSession.shared.downloadTask(with: url) { location, response, error in
            defer { done() }
            guard error == nil, let location else {
                environment?.record(PushwooshFindings.noAttachment("the download failed"))
                return
            }
            let suggested = response?.suggestedFilename ?? (response?.url?.absoluteString as NSString?)?.lastPathComponent
            let identifier = UUID().uuidString + PushwooshFindings.sanitized(suggested)
            let file = folder.appendingPathComponent(identifier)
            do {
                try FileManager.default.moveItem(at: location, to: file)
                let attachment = try UNNotificationAttachment(identifier: identifier, url: file, options: nil)
                self.state.withLock { $0.content?.attachments.append(attachment) }
            } catch {
                environment?.record(PushwooshFindings.noAttachment("UNNotificationAttachment threw for \(file.lastPathComponent)"))
            }
        }.resume()
    }
}
