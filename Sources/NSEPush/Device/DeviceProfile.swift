import Foundation

/// The device facts the emulator reproduces, including the ones Apple leaves undocumented.
///
/// Every undocumented fact (docs/assumptions-and-limits.md lists them) is a property here with the
/// default the README explains, so a team that knows better for its devices can say so.
public struct DeviceProfile: Sendable, Hashable {
    /// How long the extension may run before iOS calls `serviceExtensionTimeWillExpire()`.
    public var timeBudget: Duration = .seconds(30)
    /// App Transport Security from the extension's Info.plist: which hosts load over plain http.
    public var transportSecurity = TransportSecurity()
    /// The extension's Info.plist allows arbitrary loads (`--allow-http`): plain http loads from every host.
    public var allowsHTTP: Bool {
        get { transportSecurity.allowsArbitraryLoads }
        set { transportSecurity.allowsArbitraryLoads = newValue }
    }
    /// Bytes in the "MB" of Apple's attachment limits: undocumented, 1,000,000 (the stricter) by default.
    public var megabyte = 1_000_000
    /// The team knows which reading of "MB" its devices use (`--megabyte`): `megabyte`'s limit is then the limit.
    /// Unknown (the default), a file between the two readings' limits passes with a warning, never a failure.
    public var megabyteIsKnown = false
    /// What one image check may spend: pixels, decoder memory, pixel work across frames and scans, GIF frames,
    /// JPEG scans. Assumed bounds (Apple documents none): a file past one is reported, not judged.
    public var imageLimits = ImageDecodeLimits()
    /// Images with more pixels than this (canvas or any frame) are refused before decoding: an assumed
    /// bound on what the system's thumbnailer accepts, and the emulator's guard against decompression bombs.
    public var maxPixels: UInt64 {
        get { imageLimits.maxPixels }
        set { imageLimits.maxPixels = newValue }
    }
    /// Redirects URLSession follows before failing.
    public var maxRedirects = 16
    /// Foundation's `suggestedFilename` appends an extension from the MIME type when the name has none
    /// ("photo" served as image/png becomes "photo.png"). Observed, not documented.
    public var suggestedFilenameAddsMIMEExtension = true

    /// A `UNNotificationAttachmentOptionsTypeHintKey` holding a MIME type (`image/jpeg`) types the attachment as
    /// that MIME type's UTI (`public.jpeg`). Apple documents a UTI there and says nothing of a MIME type; Batch's
    /// servers send MIME types (its SDK's own tests use "image/png") and its rich pushes are its normal case, so
    /// read by default, with a warning. `false`: iOS ignores the hint and goes by the file extension.
    public var typeHintReadsMIMEType = true

    /// Pushes sent with `xcrun simctl push` run the extension. Xcode 14's notes say the simulator does not
    /// run it; set this to judge a `.apns` file as a device would receive the same payload.
    public var simulatorRunsExtension = false

    /// Memory an extension may use before iOS kills it: undocumented; crash logs show 24 MB ("ActiveHard").
    /// Over it, the extension is killed without an expiry call and the original content is shown.
    public var memoryLimit = 24 * 1_048_576

    /// The app's notifications already in Notification Center when the push arrives, oldest first: what
    /// `UNUserNotificationCenter.current().getDeliveredNotifications` hands the extension (badge counting).
    public var deliveredNotifications: [NotificationContent] = []

    public init() {}

    /// App Transport Security's verdict on one URL the extension loads, the payload's own and every redirect
    /// hop alike: https always, plain http only with an exception (`transportSecurity`), nothing else.
    public func transportSecurityAllows(_ url: URL) -> Bool {
        transportSecurity.allows(url)
    }

    /// The largest file iOS accepts for an attachment of `category`.
    public func sizeLimit(for category: AttachmentType.Category) -> Int {
        Self.sizeLimit(for: category, megabyte: megabyte)
    }

    /// The largest file nse lets through for `category`: `sizeLimit` when the reading of "MB" is known, else the
    /// more lenient reading's limit (a file between the two is `sizeAssumption`'s warning).
    public func acceptedSizeLimit(for category: AttachmentType.Category) -> Int {
        megabyteIsKnown ? sizeLimit(for: category) : max(sizeLimit(for: category), Self.sizeLimit(for: category, megabyte: 1_048_576))
    }

    /// The warning for a file of `bytes` that fits one reading of Apple's "MB" and not the other, when the
    /// reading is unknown; nil otherwise.
    public func sizeAssumption(bytes: Int, category: AttachmentType.Category) -> Diagnostic? {
        guard !megabyteIsKnown else { return nil }
        let decimal = Self.sizeLimit(for: category, megabyte: 1_000_000)
        let binary = Self.sizeLimit(for: category, megabyte: 1_048_576)
        guard bytes > decimal, bytes <= binary else { return nil }
        return .warning(.mediaTooLarge, "The \(category.rawValue) is \(bytes) bytes: over Apple's limit if its MB is 1,000,000 bytes (\(decimal)), under it if it is 1,048,576 (\(binary)). Apple does not say which; assumed shown. `--megabyte 1000000` judges the stricter reading. Stay under \(decimal) bytes to be sure.")
    }

    private static func sizeLimit(for category: AttachmentType.Category, megabyte: Int) -> Int {
        switch category {
        case .image: 10 * megabyte
        case .audio: 5 * megabyte
        case .movie: 50 * megabyte
        }
    }
}
