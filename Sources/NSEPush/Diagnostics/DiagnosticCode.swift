/// The stable codes of every diagnostic. Renaming a raw value is a breaking change: CI jobs match on them.
public enum DiagnosticCode: String, Sendable, Codable, CaseIterable {
    // Reading the input file.
    case inputUnreadable = "input.unreadable"
    case inputInvalidJSON = "input.invalid-json"
    case inputUnknownKind = "input.unknown-kind"
    /// nse crashed on this push in a batch; the batch went on without it (exit 2: the push was not checked).
    case internalCrash = "internal.crash"
    /// nse could not load libcurl, so it downloaded nothing (exit 2: the push was not checked).
    case internalNoLibcurl = "internal.no-libcurl"

    // FCM HTTP v1 resolution.
    case fcmInferredImage = "fcm.inferred-image"

    // FCM HTTP v1 validation: what FCM's backend refuses with 400 INVALID_ARGUMENT (Input/FCMValidation.swift).
    case fcmTargetCount = "fcm.target-count"
    case fcmDataNotString = "fcm.data-not-string"
    case fcmReservedDataKey = "fcm.reserved-data-key"
    case fcmDataOnlyPriority = "fcm.data-only-priority"
    case fcmInvalidField = "fcm.invalid-field"
    case fcmApnsPayloadAps = "fcm.apns-payload-aps"
    case fcmLegacyAPI = "fcm.legacy-api"

    // Lint of the `aps` dictionary (Lint/ApsLint.swift and its neighbours).
    case lintApsUnknownKey = "lint.aps.unknown-key"
    case lintApsAlertType = "lint.aps.alert-type"
    case lintApsAlertFieldType = "lint.aps.alert-field-type"
    case lintApsAlertUnknownKey = "lint.aps.alert-unknown-key"
    case lintApsAlertLocArgs = "lint.aps.alert-loc-args"
    case lintApsBadgeType = "lint.aps.badge-type"
    case lintApsSoundType = "lint.aps.sound-type"
    case lintApsSoundVolume = "lint.aps.sound-volume"
    case lintApsContentAvailable = "lint.aps.content-available"
    case lintApsMutableContent = "lint.aps.mutable-content"
    case lintApsInterruptionLevel = "lint.aps.interruption-level"
    case lintApsRelevanceScore = "lint.aps.relevance-score"
    case lintApsStringType = "lint.aps.string-type"
    case lintApsLiveActivity = "lint.aps.live-activity"
    case lintApsMisplacedKey = "lint.aps.misplaced-key"
    case lintApsContentChanged = "lint.aps.content-changed"

    // The image the payload asks for, judged without the network (Checks/ImageRequestRules.swift).
    case lintImageType = "lint.image.type"

    // Lint of the APNs request headers (Lint/HeaderLint.swift).
    case lintHeaderValueType = "lint.header.value-type"
    case lintHeaderUnknown = "lint.header.unknown"
    case lintHeaderPushType = "lint.header.push-type"
    case lintHeaderPushTypeMissing = "lint.header.push-type-missing"
    case lintHeaderPushTypeMismatch = "lint.header.push-type-mismatch"
    case lintHeaderPriority = "lint.header.priority"
    case lintHeaderPriorityMismatch = "lint.header.priority-mismatch"
    case lintHeaderCollapseID = "lint.header.collapse-id"
    case lintHeaderExpiration = "lint.header.expiration"
    case lintHeaderAPNsID = "lint.header.apns-id"
    case lintHeaderTopic = "lint.header.topic"

    // Checks that decide whether APNs delivers the payload at all.
    case payloadTooLarge = "payload.too-large"
    case payloadApsMissing = "payload.aps-missing"
    case payloadMutableContentNotNumber = "payload.mutable-content-not-number"
    case payloadLocalizedAlert = "payload.localized-alert"

    // Does iOS run the Notification Service Extension?
    case extensionNotInvoked = "extension.not-invoked"
    case extensionTimeExpired = "extension.time-expired"
    case extensionHandlerNotCalled = "extension.handler-not-called"
    case extensionHandlerCalledTwice = "extension.handler-called-twice"
    case extensionMemoryLimit = "extension.memory-limit"
    case extensionAttachmentOption = "extension.attachment-option"
    /// An app's own extension downloaded something (a GET) and delivered no attachment.
    case extensionNoAttachment = "extension.no-attachment"
    case extensionCommunication = "extension.communication"
    /// The extension asked for an image of the app's own (`UIImage(named:)`) that nse cannot see: a placeholder.
    case extensionBundleImage = "extension.bundle-image"
    case extensionCrashed = "extension.crashed"
    case extensionContainerSeed = "extension.container-seed"
    case extensionInfoPlist = "extension.info-plist"

    // Firebase's helper beyond the image.
    case firebaseDeliveryMetrics = "firebase.delivery-metrics"
    /// `FirebaseApp.configure` (the FirebaseCore stand-in): the app configured, a missing GoogleService-Info.plist,
    /// or the exception the SDK raises.
    case firebaseConfigure = "firebase.configure"

    // Which SDK's helper runs (SDK/SDKDetection.swift, `--sdk`). Every other `sdk.` code (and Firebase's
    // `firebase.`) starts with its SDK's `codePrefix` (SDK/SDKDescriptor.swift).
    case sdkDetectAmbiguous = "sdk.detect.ambiguous"
    case sdkExtensionMismatch = "sdk.extension-mismatch"

    // OneSignal's helper (Sources/OneSignalExtension).
    case sdkOneSignalAttachmentSkipped = "sdk.onesignal.attachment-skipped"
    case sdkOneSignalUnsupportedType = "sdk.onesignal.unsupported-type"
    case sdkOneSignalTooLarge = "sdk.onesignal.too-large"
    case sdkOneSignalInvalidAttachments = "sdk.onesignal.invalid-attachments"
    case sdkOneSignalBadge = "sdk.onesignal.badge"
    case sdkOneSignalButtons = "sdk.onesignal.buttons"
    case sdkOneSignalReceipt = "sdk.onesignal.receipt"
    case sdkOneSignalAssumption = "sdk.onesignal.assumption"
    // The helpers of Mixpanel, Airship, Pushwoosh, Batch and Notificare (their stand-in modules; docs/sdks.md).
    case sdkMixpanelNotMixpanel = "sdk.mixpanel.not-mixpanel"
    case sdkMixpanelTracking = "sdk.mixpanel.tracking"
    case sdkMixpanelButtons = "sdk.mixpanel.buttons"
    case sdkMixpanelCrash = "sdk.mixpanel.crash"
    case sdkAirshipPayload = "sdk.airship.payload"
    case sdkAirshipFailure = "sdk.airship.failure"
    case sdkAirshipExpired = "sdk.airship.expired"
    case sdkAirshipTypeHint = "sdk.airship.type-hint"
    case sdkPushwooshNotPushwoosh = "sdk.pushwoosh.not-pushwoosh"
    case sdkPushwooshDeliveryEvent = "sdk.pushwoosh.delivery-event"
    case sdkPushwooshBadge = "sdk.pushwoosh.badge"
    case sdkPushwooshNoAttachment = "sdk.pushwoosh.no-attachment"
    case sdkBatchNoRichData = "sdk.batch.no-rich-data"
    case sdkBatchFailure = "sdk.batch.failure"
    case sdkBatchTypeHint = "sdk.batch.type-hint"
    case sdkNotificareNoAttachment = "sdk.notificare.no-attachment"
    case sdkNotificareFailure = "sdk.notificare.failure"
    case sdkNotificareCrash = "sdk.notificare.crash"
    case sdkNotificareTypeHint = "sdk.notificare.type-hint"

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
    /// A type hint holding a MIME type (`image/jpeg`) where Apple documents a UTI: read by assumption.
    case mediaMIMETypeHint = "media.mime-type-hint"
    case mediaUnsupportedFormat = "media.unsupported-format"
    case mediaTypeMismatch = "media.type-mismatch"
    case mediaCorrupt = "media.corrupt"
    case mediaTooManyPixels = "media.too-many-pixels"
    // Image checks stopped at one of ImageDecodeLimits (Media/ImageDecodeLimits.swift): one code per limit.
    case mediaDecodeMemory = "media.decode-limit.memory"
    case mediaDecodePixelWork = "media.decode-limit.pixel-work"
    case mediaDecodeFrames = "media.decode-limit.frames"
    case mediaDecodeScans = "media.decode-limit.scans"
    case mediaNotSaved = "media.not-saved"
    case mediaAttachmentMissing = "media.attachment-missing"

    // Delivery routes (Routes/).
    case routeDirectChannel = "route.direct-channel"

    // The Android side of an FCM message: the notification image (Android/AndroidImageCheck.swift).
    case androidNotFCM = "android.not-fcm"
    case androidImageNone = "android.image-none"
    case androidImageInvalidURL = "android.image-invalid-url"
    case androidImageInsecureURL = "android.image-insecure-url"
    case androidImageHTTPStatus = "android.image-http-status"
    case androidImageNetwork = "android.image-network"
    case androidImageTimeout = "android.image-timeout"
    case androidImageTooLarge = "android.image-too-large"
    case androidImageUnsupportedFormat = "android.image-unsupported-format"
    case androidImageCorrupt = "android.image-corrupt"
    case androidImageDecodeLimit = "android.image-decode-limit"
    case androidImageFirstFrame = "android.image-first-frame"

    // The helpers of Braze, CleverTap, Iterable and Customer.io, each in its stand-in module
    // (Sources/BrazeNotificationService, ...); docs/sdks.md says which rules were read in each SDK's source.
    case sdkBrazeNotBraze = "sdk.braze.not-braze"
    case sdkBrazeAttachmentKeys = "sdk.braze.attachment-keys"
    case sdkBrazeOriginalContent = "sdk.braze.original-content"
    case sdkCleverTapMediaKeys = "sdk.clevertap.media-keys"
    case sdkCleverTapMediaType = "sdk.clevertap.media-type"
    case sdkCleverTapEvent = "sdk.clevertap.event"
    case sdkIterableNotIterable = "sdk.iterable.not-iterable"
    case sdkIterableAttachmentURL = "sdk.iterable.attachment-url"
    case sdkIterableCategory = "sdk.iterable.category"
    case sdkIterableActionButton = "sdk.iterable.action-button"
    case sdkCustomerIONotInitialized = "sdk.customerio.not-initialized"
    case sdkCustomerIONotCIO = "sdk.customerio.not-cio"
    case sdkCustomerIODeliveryMetric = "sdk.customerio.delivery-metric"
    case sdkCustomerIOOriginalContent = "sdk.customerio.original-content"
}
