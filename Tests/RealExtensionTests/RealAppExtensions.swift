// Extensions written the way apps on the App Store write theirs (each after a pattern common in public apps'
// NotificationService.swift files): only Apple's module names are imported, nothing Linux-specific.
import FirebaseMessaging
import Foundation
import Intents
import os   // `import os.log` works with `nse extension`, which rewrites it; a SwiftPM target writes `import os`
import UIKit
import UniformTypeIdentifiers
import UserNotifications

private let log = Logger(subsystem: "com.example.app.NotificationService", category: "push")

/// Takes the image the app cached in its app group, shrinks it to 600 points wide, re-encodes it as PNG and
/// attaches it with a type hint.
class ReencodingService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        guard let bestAttemptContent,
              let name = request.content.userInfo["cached-image"] as? String,
              let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app") else {
            contentHandler(request.content)
            return
        }
        let source = container.appendingPathComponent("images").appendingPathComponent(name)
        guard let data = try? Data(contentsOf: source), let image = UIImage(data: data) else {
            log.error("No cached image \(name, privacy: .public)")
            contentHandler(bestAttemptContent)
            return
        }
        log.info("Decoded \(name, privacy: .public): \(Int(image.size.width))x\(Int(image.size.height)) points")
        let width: CGFloat = 600
        let size = CGSize(width: width, height: (image.size.height * width / image.size.width).rounded())
        let format = UIGraphicsImageRendererFormat.default()
        format.scale = 1
        let resized = UIGraphicsImageRenderer(size: size, format: format).image { _ in
            image.draw(in: CGRect(origin: .zero, size: size))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".png")
        do {
            guard let png = resized.pngData() else { throw CocoaError(.fileWriteUnknown) }
            try png.write(to: file)
            let attachment = try UNNotificationAttachment(
                identifier: "image", url: file, options: [UNNotificationAttachmentOptionsTypeHintKey: UTType.png.identifier])
            bestAttemptContent.attachments = [attachment]
            log.debug("Attached \(png.count) bytes")
        } catch {
            log.error("Attachment failed: \(error.localizedDescription, privacy: .public)")
        }
        contentHandler(bestAttemptContent)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

/// Counts the notifications still on the lock screen to set the app icon's badge.
class BadgeService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            contentHandler(request.content)
            return
        }
        UNUserNotificationCenter.current().getDeliveredNotifications { notifications in
            let unread = notifications.filter { $0.request.content.threadIdentifier == content.threadIdentifier }.count + 1
            content.badge = NSNumber(value: unread)
            os_log("badge %{public}d from %d delivered", log: OSLog(subsystem: "com.example.app", category: "badge"), type: .info, unread, notifications.count)
            contentHandler(content)
        }
    }
}

/// A chat app's message push: the sender's avatar comes from the app group's cache, the notification becomes
/// a communication notification.
class MessageService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let userInfo = request.content.userInfo
        guard let senderID = userInfo["sender-id"] as? String, let senderName = userInfo["sender-name"] as? String else {
            contentHandler(request.content)
            return
        }
        var avatar: INImage?
        if let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.chat"),
           let data = try? Data(contentsOf: container.appendingPathComponent("avatars/\(senderID).png")) {
            avatar = INImage(imageData: data)
        }
        var nameComponents = PersonNameComponents()
        nameComponents.nickname = senderName
        let sender = INPerson(
            personHandle: INPersonHandle(value: senderID, type: .unknown), nameComponents: nameComponents,
            displayName: senderName, image: avatar, contactIdentifier: nil, customIdentifier: senderID, isMe: false,
            suggestionType: .none)
        let groupName = (userInfo["group-name"] as? String).map { INSpeakableString(spokenPhrase: $0) }
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: request.content.body,
            speakableGroupName: groupName, conversationIdentifier: userInfo["conversation-id"] as? String,
            serviceName: nil, sender: sender, attachments: nil)
        intent.setImage(avatar, forParameterNamed: \.sender)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate { error in
            if let error {
                log.error("Donation failed: \(error.localizedDescription)")
            }
            do {
                let updated = try request.content.updating(from: intent)
                contentHandler(updated)
            } catch {
                contentHandler(request.content)
            }
        }
    }
}

/// Decodes the full-size photo the app cached, to make a thumbnail: a 12-megapixel photo is 48 MB of pixels.
class PhotoThumbnailService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        Task {
            guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.photos"),
                  let data = try? Data(contentsOf: container.appendingPathComponent("latest.jpg")),
                  let photo = UIImage(data: data),
                  let thumbnail = await photo.byPreparingThumbnail(ofSize: CGSize(width: 300, height: 225)),
                  let jpeg = thumbnail.jpegData(compressionQuality: 0.8) else {
                log.error("No photo")
                contentHandler(request.content)
                return
            }
            log.info("Thumbnail of \(photo.size.width, format: .fixed(precision: 0))x\(photo.size.height, format: .fixed(precision: 0)): \(jpeg.count) bytes")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).jpg")
            try? jpeg.write(to: file)
            if let attachment = try? UNNotificationAttachment(identifier: "thumbnail", url: file, options: nil) {
                bestAttemptContent?.attachments = [attachment]
            }
            contentHandler(bestAttemptContent ?? request.content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

/// Downloads with `URLSession`'s async API inside a Task, logs with `Logger`, hints the type with `UTType`.
class AsyncDownloadService: UNNotificationServiceExtension {
    private let logger = Logger(subsystem: "com.example.news", category: "images")
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let bestAttemptContent, let link = request.content.userInfo["media-url"] as? String, let url = URL(string: link) else {
            contentHandler(request.content)
            return
        }
        Task {
            do {
                let (location, response) = try await URLSession.shared.download(from: url)
                let type = (response.mimeType.flatMap { UTType(mimeType: $0) } ?? .jpeg)
                let file = location.deletingLastPathComponent().appendingPathComponent("media-\(UUID().uuidString)")
                try FileManager.default.moveItem(at: location, to: file)
                // No file extension: the type hint tells iOS what the file is.
                let attachment = try UNNotificationAttachment(identifier: "media", url: file, options: [UNNotificationAttachmentOptionsTypeHintKey: type.identifier])
                bestAttemptContent.attachments = [attachment]
                logger.info("Attached \(type.identifier, privacy: .public) from \(url.host ?? "?", privacy: .private)")
            } catch {
                logger.error("Download failed: \(error.localizedDescription, privacy: .public)")
            }
            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

/// Updates the content without donating, with avatar bytes that are no image.
class HastyMessageService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let sender = INPerson(
            personHandle: INPersonHandle(value: "u1", type: .unknown), nameComponents: nil, displayName: "Cy",
            image: INImage(imageData: Data("<html>avatar</html>".utf8)), contactIdentifier: nil, customIdentifier: "u1")
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: nil, speakableGroupName: nil,
            conversationIdentifier: "c1", serviceName: nil, sender: sender, attachments: nil)
        contentHandler((try? request.content.updating(from: intent)) ?? request.content)
    }
}

/// Keeps an unread counter in the app group's defaults, shared with the app, and shows it as the badge.
class SharedCounterService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        let defaults = UserDefaults(suiteName: "group.com.example.app")
        let unread = (defaults?.integer(forKey: "unread") ?? 0) + 1
        defaults?.set(unread, forKey: "unread")
        content.badge = NSNumber(value: unread)
        content.subtitle = "stored \(UserDefaults(suiteName: "group.com.example.app")?.integer(forKey: "unread") ?? -1)"
        contentHandler(content)
    }
}

/// An extension ported from Objective-C, calling Firebase's helper by its Objective-C name.
class ObjCStyleFirebaseService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        FIRMessagingExtensionHelper().populateNotificationContent(content, withContentHandler: contentHandler)
    }
}
