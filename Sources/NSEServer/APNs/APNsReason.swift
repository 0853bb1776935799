import NSEPush

/// APNs's answers: the HTTP status and `reason` Apple documents for each ("Handling notification responses from
/// APNs", developer.apple.com; the same list as sideshow/apns2's response.go and Pushy's RejectionReason).
enum APNsReason: String, Sendable {
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case expiredProviderToken = "ExpiredProviderToken"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case internalServerError = "InternalServerError"
    /// Not in Apple's list: APNs's answer to a body that is not a JSON object (or has no `aps`) is not documented.
    /// nse answers 400 with this reason so a sender's handling of an unknown 400 is exercised (docs/serve.md).
    case badPayload = "BadPayload"

    var status: Int {
        switch self {
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .invalidProviderToken, .missingProviderToken: 403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates: 429
        case .internalServerError: 500
        default: 400
        }
    }

    /// The answer for a push the checks stage refuses (`Diagnostic.rejectsPush`): each refusing code's reason.
    /// nil: the code is not one APNs refuses for (FCM's own, which never reach this endpoint).
    static func refusing(_ code: DiagnosticCode) -> APNsReason? {
        switch code {
        case .lintHeaderPushType: .invalidPushType
        case .lintHeaderPriority: .badPriority
        case .lintHeaderCollapseID: .badCollapseId
        case .lintHeaderExpiration: .badExpirationDate
        case .lintHeaderAPNsID: .badMessageId
        // A topic whose suffix does not fit the push type: the token is not one for that topic.
        case .lintHeaderTopic: .deviceTokenNotForTopic
        case .payloadTooLarge: .payloadTooLarge
        case .payloadApsMissing, .inputInvalidJSON, .inputUnknownKind, .lintHeaderValueType: .badPayload
        default: nil
        }
    }
}
