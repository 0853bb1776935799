/// The stable codes of every diagnostic. Renaming a raw value is a breaking change: CI jobs match on them.
public enum DiagnosticCode: String, Sendable, Codable, CaseIterable {
    // Reading the input file.
    case inputUnreadable = "input.unreadable"
    case inputInvalidJSON = "input.invalid-json"
    case inputUnknownKind = "input.unknown-kind"

    // FCM HTTP v1 resolution.
    case fcmInferredImage = "fcm.inferred-image"

    // Checks that decide whether APNs delivers the payload at all.
    case payloadTooLarge = "payload.too-large"
    case payloadApsMissing = "payload.aps-missing"
    case payloadMutableContentNotNumber = "payload.mutable-content-not-number"

    // Does iOS run the Notification Service Extension?
    case extensionNotInvoked = "extension.not-invoked"
    case extensionTimeExpired = "extension.time-expired"
    case extensionHandlerNotCalled = "extension.handler-not-called"
    case extensionHandlerCalledTwice = "extension.handler-called-twice"
    case extensionMemoryLimit = "extension.memory-limit"
    case extensionAttachmentOption = "extension.attachment-option"

    // Firebase's helper beyond the image.
    case firebaseDeliveryMetrics = "firebase.delivery-metrics"

    // The media the extension fetches and attaches.
    case mediaNone = "media.none"
    case mediaInvalidURL = "media.invalid-url"
    case mediaInsecureURL = "media.insecure-url"
    case mediaHTTPStatus = "media.http-status"
    case mediaTimeout = "media.timeout"
    case mediaNetwork = "media.network"
    case mediaTooManyRedirects = "media.too-many-redirects"
    case mediaTooLarge = "media.too-large"
    case mediaTruncated = "media.truncated"
    case mediaUnrecognizedType = "media.unrecognized-type"
    case mediaUnsupportedFormat = "media.unsupported-format"
    case mediaTypeMismatch = "media.type-mismatch"
    case mediaCorrupt = "media.corrupt"
    case mediaTooManyPixels = "media.too-many-pixels"
    case mediaNotSaved = "media.not-saved"
    case mediaAttachmentMissing = "media.attachment-missing"
}
