import Foundation
import NSEPush
import UserNotifications
import NSEPipeline

/// Batch's display receipts (BatchLabs/Batch-iOS-SDK-Extension, `Sources/Swift/Display Receipt/
/// DisplayReceiptHelper.swift`): an extension written without the drop-in subclass calls
/// `BAEDisplayReceiptHelper().didReceive(request)` beside the rich helper. Batch caches the receipt in the app
/// group and posts it to drws.batch.com; the stand-in checks the payload as Batch does and logs the receipt it
/// would send on the run (nothing is cached or sent). Batch's opt-out check reads the app group, which the
/// emulator does not have: the user is assumed not opted out.
public class DisplayReceiptHelper: NSObject, @unchecked Sendable {
    public override init() {
        super.init()
    }

    /// Receipt mode 1 or 2 under `com.batch.r.m` makes a receipt; any other number is an invalid payload, and no
    /// `r.m` at all is no receipt. The handler gets the content back in every case, with the error if any.
    public func processDisplayReceipt(forContent content: UNNotificationContent, completionHandler: @escaping (UNNotificationContent?, (any Error)?) -> Void) {
        let environment = ExtensionEnvironment.current
        let batch = content.userInfo[SDKDescriptor.batch.marker] as? [AnyHashable: Any]
        guard let mode = (batch?["r"] as? [AnyHashable: Any])?["m"] as? Int else {
            return completionHandler(content, DisplayReceiptHelperError.noReceiptDataFound)
        }
        guard (0...2).contains(mode) else {
            return completionHandler(content, DisplayReceiptHelperError.invalidReceiptDataPayload)
        }
        guard mode != 0 else {
            return completionHandler(content, DisplayReceiptHelperError.noReceiptDataFound)
        }
        environment?.log(.info, "Batch would cache a display receipt (mode \(mode)) in the app group and post it to https://drws.batch.com (recorded, not sent)", source: "BatchExtension")
        completionHandler(content, nil)
    }

    /// Batch prints any error and carries on: the notification is never held up by its receipt.
    public func didReceive(_ request: UNNotificationRequest) {
        let environment = ExtensionEnvironment.current
        processDisplayReceipt(forContent: request.content) { _, error in
            if let error { environment?.log(.error, "Batch - An error occurred while processing display receipts: \(error)", source: "BatchExtension") }
        }
    }

    /// Batch does nothing here.
    public func serviceExtensionTimeWillExpire() {}
}

public typealias BAEDisplayReceiptHelper = DisplayReceiptHelper

/// The errors `processDisplayReceipt` hands back (Batch's `DisplayReceiptHelperError`).
public enum DisplayReceiptHelperError: Error, CustomNSError {
    case noReceiptDataFound
    case invalidReceiptDataPayload
    case readCacheError(underlyingError: any Error)
    case writeCacheError(underlyingError: any Error)
    case packError(underlyingError: any Error)
    case unpackError(underlyingError: any Error)
    case appGroupError
    case unknownError

    public static var errorDomain: String { "com.batch.extension.displayreceipthelper" }
}
