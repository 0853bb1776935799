/// The thumbnail options an extension passed to `UNNotificationAttachment(identifier:url:options:)`, as iOS
/// reads them (values iOS ignores are left out and reported as `extension.attachment-option`).
public struct ThumbnailOptions: Sendable, Hashable, Codable {
    /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`: the collapsed notification shows no thumbnail.
    public var hidden: Bool?
    /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`: the part of the image the thumbnail shows,
    /// normalized (0...1) from the image's top-left corner.
    public var clippingRect: ClippingRect?
    /// `UNNotificationAttachmentOptionsThumbnailTimeKey`: the frame number of an animated image (seconds for a
    /// movie) the thumbnail shows.
    public var time: Double?

    public init(hidden: Bool? = nil, clippingRect: ClippingRect? = nil, time: Double? = nil) {
        self.hidden = hidden
        self.clippingRect = clippingRect
        self.time = time
    }

    public var isEmpty: Bool { hidden == nil && clippingRect == nil && time == nil }

    /// The frame of an animated image the thumbnail shows: `time` as a whole frame number, 0 when absent.
    public var frame: Int {
        guard let time, time.isFinite, time >= 0 else { return 0 }
        return Int(saturating: time.rounded(.down))
    }
}

/// A rectangle in the unit square, as `CGRect` holds a normalized clipping rectangle.
public struct ClippingRect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Inside the unit square with a positive size: what iOS can use.
    public var isNormalized: Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= 1 && y + height <= 1
    }
}
