@_exported import Foundation
import NSEPush
import NSEMedia
import UserNotifications
import NSEPipeline

/// `UIImage` as a Notification Service Extension uses it: decode downloaded bytes, resize, encode again.
/// Decoding is real (libpng, libjpeg-turbo, giflib) and happens when the image is created (iOS defers it to
/// the first draw or encode, which an extension nearly always does next). Every decoded bitmap is charged to
/// the run's memory, width x height x 4 bytes, until the image is freed: a 12-megapixel photo is 48 MB,
/// twice what iOS lets an extension use.
open class UIImage: NSObject, @unchecked Sendable {
    // Immutable after init; the bitmap is only read (drawn, encoded) once the image exists.
    package let bitmap: RGBABitmap
    public let scale: CGFloat
    private let charge: MemoryCharge?

    package init(bitmap: RGBABitmap, scale: CGFloat, charge: MemoryCharge?) {
        self.bitmap = bitmap
        self.scale = scale > 0 ? scale : 1
        self.charge = charge
        super.init()
    }

    public convenience init?(data: Data) {
        self.init(data: data, scale: 1)
    }

    public convenience init?(data: Data, scale: CGFloat) {
        guard let (bitmap, charge) = Self.decode(data, source: "UIImage(data:)") else { return nil }
        self.init(bitmap: bitmap, scale: scale, charge: charge)
    }

    public convenience init?(contentsOfFile path: String) {
        guard let data = FileManager.default.contents(atPath: path),
              let (bitmap, charge) = Self.decode(data, source: "UIImage(contentsOfFile:)") else { return nil }
        self.init(bitmap: bitmap, scale: 1, charge: charge)
    }

    /// The app's image `name`: a file of that name in the run's bundle, else a placeholder with a warning (nse has
    /// no asset catalog), so an extension that unwraps its own asset does not crash where it works on a device.
    public convenience init?(named name: String) {
        if let data = BundleImage.data(named: name) {
            self.init(data: data)
            return
        }
        guard let bitmap = BundleImage.placeholder(named: name, by: "UIImage(named:)") else { return nil }
        self.init(bitmap: bitmap, scale: 1, charge: StandInRun.chargeMemory(bitmap.bytes))
    }

    /// `UIImage(named:in:compatibleWith:)`: the bundle is looked in first; traits do not matter here.
    public convenience init?(named name: String, in bundle: Bundle?, compatibleWith traitCollection: AnyObject?) {
        if let bundle, let data = BundleImage.data(named: name, in: bundle) {
            self.init(data: data)
            return
        }
        self.init(named: name)
    }

    /// The size in points: pixels divided by `scale`.
    open var size: CGSize {
        CGSize(width: CGFloat(bitmap.width) / scale, height: CGFloat(bitmap.height) / scale)
    }

    open func pngData() -> Data? {
        try? bitmap.pngData()
    }

    open func jpegData(compressionQuality: CGFloat) -> Data? {
        try? bitmap.jpegData(quality: Double(compressionQuality))
    }

    /// Draws the image into the current image context (a renderer's, or UIGraphicsBeginImageContext's).
    open func draw(in rect: CGRect) {
        ImageContext.current?.draw(bitmap, in: rect)
    }

    open func draw(at point: CGPoint) {
        draw(in: CGRect(origin: point, size: size))
    }

    /// A downscaled copy that fits `size` (iOS 15), decoded at the smaller size.
    open func preparingThumbnail(of size: CGSize) -> UIImage? {
        let renderer = UIGraphicsImageRenderer(size: size, format: UIGraphicsImageRendererFormat(scale: 1))
        return renderer.image { _ in draw(in: CGRect(origin: .zero, size: size)) }
    }

    open func byPreparingThumbnail(ofSize size: CGSize) async -> UIImage? {
        preparingThumbnail(of: size)
    }

    /// Decodes and charges the bitmap. An image too large to decode is still charged for what iOS would
    /// allocate for it, so the run reports the memory kill that would end the extension on a phone.
    ///
    /// Decoding stops at a bitmap of four times the extension's memory limit (24 million pixels for 24 MB):
    /// far enough for the extension's code to go on past a decode that kills it on a phone (a 12-megapixel photo),
    /// while an image with a hostile header (a progressive JPEG claiming 100 megapixels) cannot make the emulator
    /// itself allocate gigabytes. Past that the image is charged, not decoded, and `UIImage(data:)` returns nil.
    private static func decode(_ data: Data, source: String) -> (RGBABitmap, MemoryCharge?)? {
        let profile = StandInRun.environment?.context.profile ?? DeviceProfile()
        let decodable = min(profile.maxPixels, UInt64(max(profile.memoryLimit, 0)))
        do {
            let bitmap = try RGBABitmap.decode(data, maxPixels: decodable)
            let charge = StandInRun.chargeMemory(bitmap.bytes)
            return (bitmap, charge)
        } catch .tooManyPixels(let width, let height) {
            let (bytes, overflow) = width.multipliedReportingOverflow(by: height * 4)
            // Charged and given back at once: the run's peak is what iOS would have tried to allocate.
            _ = StandInRun.chargeMemory(overflow ? Int.max / 4 : bytes)
            return nil
        } catch {
            return nil
        }
    }
}
