import Foundation
import NSEMedia
import UserNotifications

/// The main screen, for code that scales by it: an iPhone with a 3x display.
open class UIScreen: NSObject, @unchecked Sendable {
    // Immutable.
    public static let main = UIScreen()
    public let scale: CGFloat = 3
    public let bounds = CGRect(x: 0, y: 0, width: 393, height: 852)
    public var nativeScale: CGFloat { scale }
}

/// Scale and opacity of the bitmaps a renderer makes; the default scale is the screen's, as on iOS.
open class UIGraphicsImageRendererFormat: NSObject, @unchecked Sendable {
    // Set before the renderer is made, on one thread.
    open var scale: CGFloat
    open var opaque = false

    public override init() {
        scale = UIScreen.main.scale
        super.init()
    }

    init(scale: CGFloat) {
        self.scale = scale
        super.init()
    }

    open class func `default`() -> UIGraphicsImageRendererFormat { UIGraphicsImageRendererFormat() }
    open class func preferred() -> UIGraphicsImageRendererFormat { UIGraphicsImageRendererFormat() }
}

/// What a renderer's drawing closure gets.
open class UIGraphicsImageRendererContext: NSObject, @unchecked Sendable {
    // Used only inside the drawing closure, on the renderer's thread.
    let context: ImageContext

    init(context: ImageContext) {
        self.context = context
        super.init()
    }

    open var currentImage: UIImage { context.image() }
}

/// Draws into a bitmap of `size` points x `format.scale`: `renderer.image { _ in image.draw(in: rect) }`.
open class UIGraphicsImageRenderer: NSObject, @unchecked Sendable {
    // Immutable.
    public let format: UIGraphicsImageRendererFormat
    let size: CGSize

    public init(size: CGSize, format: UIGraphicsImageRendererFormat) {
        self.size = size
        self.format = format
        super.init()
    }

    public convenience init(size: CGSize) {
        self.init(size: size, format: .default())
    }

    public convenience init(bounds: CGRect) {
        self.init(size: bounds.size, format: .default())
    }

    open func image(actions: (UIGraphicsImageRendererContext) -> Void) -> UIImage {
        let context = ImageContext(size: size, scale: format.scale, opaque: format.opaque)
        context.push()
        defer { context.pop() }
        actions(UIGraphicsImageRendererContext(context: context))
        return context.image()
    }

    open func pngData(actions: (UIGraphicsImageRendererContext) -> Void) -> Data {
        image(actions: actions).pngData() ?? Data()
    }

    open func jpegData(withCompressionQuality compressionQuality: CGFloat, actions: (UIGraphicsImageRendererContext) -> Void) -> Data {
        image(actions: actions).jpegData(compressionQuality: compressionQuality) ?? Data()
    }
}

/// A bitmap being drawn into, current on its thread between push and pop (UIKit's context stack).
final class ImageContext {
    let bitmap: RGBABitmap?
    let scale: CGFloat
    private let charge: MemoryCharge?

    init(size: CGSize, scale: CGFloat, opaque: Bool) {
        let scale = scale > 0 ? scale : UIScreen.main.scale
        self.scale = scale
        let width = Self.pixels(size.width * scale), height = Self.pixels(size.height * scale)
        // The context's bitmap is memory the extension holds, like a decoded image.
        let bitmap = RGBABitmap(width: width, height: height)
        if opaque { bitmap?.fill(red: 0, green: 0, blue: 0, alpha: 255) }
        self.bitmap = bitmap
        charge = bitmap.flatMap { StandInRun.chargeMemory($0.bytes) }
    }

    /// Points to whole pixels, never trapping on NaN, infinity or huge sizes (an empty context instead).
    private static func pixels(_ value: CGFloat) -> Int {
        guard value.isFinite, value >= 1, value < 1_000_000 else { return value >= 0.5 && value < 1 ? 1 : 0 }
        return Int(value.rounded())
    }

    func draw(_ source: RGBABitmap, in rect: CGRect) {
        bitmap?.draw(source, x: Double(rect.origin.x * scale), y: Double(rect.origin.y * scale),
                     width: Double(rect.size.width * scale), height: Double(rect.size.height * scale))
    }

    /// The drawing so far as an image: a copy, charged as a bitmap of its own. An empty context (a zero or
    /// absurd size) gives a 1x1 transparent image, where iOS gives an empty one.
    func image() -> UIImage {
        guard let bitmap, let copy = RGBABitmap(width: bitmap.width, height: bitmap.height) else {
            return UIImage(bitmap: Self.placeholder, scale: scale, charge: nil)
        }
        copy.draw(bitmap, x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
        let charge = StandInRun.chargeMemory(copy.bytes)
        return UIImage(bitmap: copy, scale: scale, charge: charge)
    }

    // Never drawn into: shared by every empty context. (A 4-byte calloc does not fail short of a dying process.)
    private static let placeholder = RGBABitmap(width: 1, height: 1)!

    private static let key = "nse.uikit.image-contexts"

    static var current: ImageContext? {
        (Thread.current.threadDictionary[key] as? [ImageContext])?.last
    }

    func push() {
        var stack = Thread.current.threadDictionary[Self.key] as? [ImageContext] ?? []
        stack.append(self)
        Thread.current.threadDictionary[Self.key] = stack
    }

    func pop() {
        var stack = Thread.current.threadDictionary[Self.key] as? [ImageContext] ?? []
        if !stack.isEmpty { stack.removeLast() }
        Thread.current.threadDictionary[Self.key] = stack
    }
}

public func UIGraphicsBeginImageContextWithOptions(_ size: CGSize, _ opaque: Bool, _ scale: CGFloat) {
    ImageContext(size: size, scale: scale, opaque: opaque).push()
}

public func UIGraphicsBeginImageContext(_ size: CGSize) {
    ImageContext(size: size, scale: 1, opaque: false).push()
}

public func UIGraphicsGetImageFromCurrentImageContext() -> UIImage? {
    ImageContext.current?.image()
}

public func UIGraphicsEndImageContext() {
    ImageContext.current?.pop()
}
