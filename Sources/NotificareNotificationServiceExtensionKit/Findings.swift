import Foundation
import NSEPush
import UserNotifications

/// What the run reports about Notificare's helper; read in Notificare/notificare-sdk-ios 4.2.3
/// (NotificareNotificationServiceExtensionKit/Sources/NotificareNotificationServiceExtension.swift).
enum NotificareFindings {
    static let noAttachment = Diagnostic.info(.sdkNotificareNoAttachment, "No `attachment.uri`: Notificare's helper succeeds with the content unchanged.")

    static func failure(_ error: any Error) -> Diagnostic {
        let why = switch error {
        case NotificareNotificationServiceExtension.Error.invalidUrl: "invalidUrl: `attachment.uri` is not a URL"
        case NotificareNotificationServiceExtension.Error.downloadFailed: "downloadFailed: the file could not be written or UNNotificationAttachment threw (see above)"
        case let error as URLError: "the request failed: NSURLErrorDomain \(error.errorCode)"
        default: String(describing: error)
        }
        return .error(.sdkNotificareFailure, "Notificare's handleNotificationRequest failed (\(why)): the documented extension delivers the original content.")
    }

    static func noPathComponent(_ uri: String) -> Diagnostic {
        .error(.sdkNotificareCrash, "\(uri) has no path: Notificare names the file `url.pathComponents.last!`, which traps on a URL without one. The extension crashes and iOS shows the original content. Give the attachment a URL with a file name.")
    }

    static func typeHint(_ hint: String, mimeType: String, fileName: String) -> Diagnostic {
        if AttachmentType(identifier: hint)?.category != nil {
            return .info(.sdkNotificareTypeHint, "Notificare passes the type hint \(hint) from the response's MIME type \(mimeType): it decides the type, whatever the file name \(fileName) says.")
        }
        if AttachmentType(identifier: hint) != nil {
            return .warning(.sdkNotificareTypeHint, "Notificare passes the type hint \(hint) from the response's MIME type \(mimeType), a type iOS refuses as an attachment, whatever the file name \(fileName) says.")
        }
        return .warning(.sdkNotificareTypeHint, "Notificare passes the type hint \(hint) from the response's MIME type \(mimeType), which names no attachment type. Assumed: iOS then goes by the file name \(fileName). Serve the image with its own MIME type.")
    }
}
