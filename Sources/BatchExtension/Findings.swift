import Foundation
import NSEPush

/// What the run reports about Batch's helper; read in BatchLabs/Batch-iOS-SDK-Extension (Sources/Swift/Rich
/// Notifications/RichNotificationHelper.swift, Sources/Swift/Consts.swift, Sources/Swift/SwiftPM/
/// BAENotificationServiceExtension.swift).
enum BatchFindings {
    static func noRichData(partial missing: String?) -> Diagnostic {
        guard let missing else {
            return .info(.sdkBatchNoRichData, "No `com.batch.at`: Batch's helper has nothing to attach and delivers the content unchanged.")
        }
        return .warning(.sdkBatchNoRichData, "`com.batch.at` has no string \(missing): Batch needs both `u` and `t` and delivers the content unchanged, without an image.")
    }

    static func failure(_ why: String) -> Diagnostic {
        .error(.sdkBatchFailure, "Batch got no attachment: \(why). It delivers the original content.")
    }

    static func unknownTypeHint(_ hint: String) -> Diagnostic {
        .warning(.sdkBatchTypeHint, "`com.batch.at.t` is \"\(hint)\", not a type identifier iOS knows (such as public.jpeg), nor a MIME type read as one (unless `--no-mime-type-hint` says iOS ignores those); Batch passes it as UNNotificationAttachmentOptionsTypeHintKey and attaches the downloaded .tmp file as it is. Assumed: iOS ignores the hint and goes by the .tmp extension, so the attachment fails (UNError 101).")
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return "NSURLErrorDomain \(error.errorCode)" }
        return String(describing: error)
    }
}
