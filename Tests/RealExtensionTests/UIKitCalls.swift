// UIKit is used here, not in the test files: a file importing both Testing and UIKit asks for Swift Testing's
// `_Testing_UIKit` cross-import overlay, which exists only on Apple's systems.
import Foundation
import UIKit

/// What UIKit calls return, as plain values.
enum UIKitCalls {
    struct Image: Equatable {
        var size: CGSize
        var scale: CGFloat
        var png: Data?
        var jpeg: Data?
    }

    static func decode(_ data: Data) -> Image? {
        UIImage(data: data).map(describe)
    }

    static func render(_ size: CGSize) -> Image {
        describe(UIGraphicsImageRenderer(size: size).image { _ in })
    }

    /// The pre-iOS 10 way apps resize: an image context at the screen's scale (0), drawn into, read back.
    static func resizeWithImageContext(_ data: Data, to size: CGSize) -> Image? {
        guard let source = UIImage(data: data) else { return nil }
        UIGraphicsBeginImageContextWithOptions(size, false, 0)
        defer { UIGraphicsEndImageContext() }
        source.draw(in: CGRect(origin: .zero, size: size))
        return UIGraphicsGetImageFromCurrentImageContext().map(describe)
    }

    private static func describe(_ image: UIImage) -> Image {
        Image(size: image.size, scale: image.scale, png: image.pngData(), jpeg: image.jpegData(compressionQuality: 0.5))
    }
}
