import NSEPush

/// The Android side of an FCM message as `nse process --platform android|both` verifies it: the notification the
/// FCM SDK posts while the app is in the background, and whether its image appears.
public struct AndroidResult: Sendable, Codable {
    /// The notification's fields (FCM's names); nil for a data-only message, which the system does not show.
    public var notification: [String: JSONValue]?
    /// The map `onMessageReceived` (or the tapped notification's intent) receives.
    public var data: [String: JSONValue]
    /// `android.notification.image`, else `notification.image`; nil when none is asked for.
    public var imageURL: String?
    /// Would the notification show the image.
    public var imageShown: Bool
    /// What was downloaded, when a download completed.
    public var image: AndroidImage?
    public var diagnostics: [Diagnostic]

    public init(
        notification: [String: JSONValue]?, data: [String: JSONValue], imageURL: String? = nil, imageShown: Bool = false,
        image: AndroidImage? = nil, diagnostics: [Diagnostic] = []
    ) {
        self.notification = notification
        self.data = data
        self.imageURL = imageURL
        self.imageShown = imageShown
        self.image = image
        self.diagnostics = diagnostics
    }
}

/// The image file the FCM SDK downloaded, as `BitmapFactory` would see it.
public struct AndroidImage: Sendable, Codable, Hashable {
    public var bytes: Int
    /// The format its magic number names: jpeg, png, gif, webp, bmp...
    public var format: MediaFormat
    /// True when every row was decoded (JPEG, PNG, GIF); WebP and BMP are recognised by their magic number only.
    public var decoded: Bool
    public var width: Int?
    public var height: Int?
    public var frames: Int?
    public var sha256: String
    /// Where the image was saved (`nse process --out`, a batch's output, `nse serve`'s data folder), as an
    /// attachment's `file` is; nil when it was not kept or the notification does not show it.
    public var file: String?
}
