//
//  NotificationService.swift
//  ShopNotificationService
//
//  The Xcode template, grown the way apps grow it: the image URL comes from the payload, the download is
//  async, the log says what happened.
//

import UserNotifications
import UniformTypeIdentifiers
import os.log

class NotificationService: UNNotificationServiceExtension {

    private let logger = Logger(subsystem: "com.example.shop.NotificationService", category: "rich-push")

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        guard let bestAttemptContent = bestAttemptContent else {
            contentHandler(request.content)
            return
        }
        guard let link = request.content.userInfo["image-url"] as? String, let url = URL(string: link) else {
            logger.info("No image in this push")
            contentHandler(bestAttemptContent)
            return
        }
        bestAttemptContent.threadIdentifier = "promotions"

        Task {
            do {
                let file = try await AttachmentDownloader.download(url)
                let attachment = try UNNotificationAttachment(
                    identifier: "image", url: file,
                    options: [UNNotificationAttachmentOptionsTypeHintKey: AttachmentDownloader.typeHint(for: url)])
                bestAttemptContent.attachments = [attachment]
                logger.info("Attached \(url.lastPathComponent, privacy: .public)")
            } catch {
                logger.error("No image: \(error.localizedDescription, privacy: .public)")
            }
            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        // Called just before the extension will be terminated by the system.
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

extension AttachmentDownloader {
    /// The attachment's type, told to iOS instead of leaving it to the file's extension.
    static func typeHint(for url: URL) -> String {
        (UTType(filenameExtension: url.pathExtension) ?? .jpeg).identifier
    }
}
