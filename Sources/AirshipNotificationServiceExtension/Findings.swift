import Foundation
import NSEPush
import UserNotifications

/// What the run reports about Airship's helper; read in urbanairship/ios-library (AirshipExtensions/
/// AirshipNotificationServiceExtension/Source: UANotificationServiceExtension.swift, MediaAttachmentPayload.swift,
/// AirshipNotificationMutationProvider.swift).
enum AirshipFindings {
    struct Hint: Sendable {
        enum Source: Sendable { case mimeType, bytes }
        var identifier: String
        var source: Source
    }

    static func invalidPayload(_ reason: String) -> Diagnostic {
        .error(.sdkAirshipPayload, "`com.urbanairship.media_attachment` does not decode: \(reason). Airship logs the error and delivers the content without any of its changes (no image, title, subtitle or body from `content`).")
    }

    static func failure(_ error: any Error, items: Int) -> Diagnostic {
        let which = items > 1 ? "One of the \(items) media items failed" : "The media item failed"
        return .error(.sdkAirshipFailure, "\(which) (\(describe(error))): Airship drops every change of the payload, attachments, title, subtitle and body alike, and delivers the original content.")
    }

    static let expired = Diagnostic.error(.sdkAirshipExpired, "Time ran out: Airship's serviceExtensionTimeWillExpire() cancels its downloads and delivers the original content (not a best attempt): none of the payload's changes show.")

    static func typeHint(_ url: URL, hint: Hint?, mimeType: String?) -> Diagnostic {
        let served = mimeType.map { "served as \($0)" } ?? "served without a MIME type"
        guard let hint else {
            return .warning(.sdkAirshipTypeHint, "\(url.absoluteString) has no extension Airship trusts, is \(served), and its first bytes are no type Airship knows (its JPEG check wants a JFIF header, FF D8 FF E0): no type hint, so iOS cannot type the file (UNError 101).")
        }
        let how = hint.source == .mimeType ? "from its MIME type (\(mimeType ?? ""))" : "from its first bytes (\(served))"
        return .info(.sdkAirshipTypeHint, "\(url.absoluteString) has no extension Airship trusts: Airship passes the type hint \(hint.identifier), \(how).")
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return "NSURLErrorDomain \(error.errorCode)" }
        if let error = error as? UNError { return "UNError \(error.errorCode)" }
        return String(describing: error)
    }
}
