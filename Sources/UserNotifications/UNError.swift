import Foundation

public let UNErrorDomain = "UNErrorDomain"

/// The errors `UserNotifications` throws, with Apple's codes (UNError 100 "invalid URL", 101 "unrecognized
/// type", 102 "invalid file size" ...), so `catch UNError.attachmentUnrecognizedType` works as on iOS.
public struct UNError: Error, Hashable, Sendable, CustomNSError, LocalizedError {
    public enum Code: Int, Sendable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case attachmentUnrecognizedType = 101
        case attachmentInvalidFileSize = 102
        case attachmentNotInDataStore = 103
        case attachmentMoveIntoDataStoreFailed = 104
        case attachmentCorrupt = 105
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
        case contentProvidingObjectNotAllowed = 1500
        case contentProvidingInvalid = 1501
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public static var errorDomain: String { UNErrorDomain }
    public var errorCode: Int { code.rawValue }

    public var errorDescription: String? {
        switch code {
        case .attachmentInvalidURL: "Invalid attachment file URL"
        case .attachmentUnrecognizedType: "Unrecognized attachment file type"
        case .attachmentInvalidFileSize: "Invalid attachment file size"
        case .attachmentNotInDataStore: "Attachment is not in the data store"
        case .attachmentMoveIntoDataStoreFailed: "Attachment could not be moved into the data store"
        case .attachmentCorrupt: "Attachment is corrupt"
        default: "UNErrorDomain error \(code.rawValue)"
        }
    }

    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
    public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
    public static var attachmentCorrupt: Code { .attachmentCorrupt }
}

extension UNError.Code {
    /// Lets `catch UNError.attachmentUnrecognizedType` match a thrown `UNError`.
    public static func ~= (code: UNError.Code, error: any Error) -> Bool {
        (error as? UNError)?.code == code
    }
}
