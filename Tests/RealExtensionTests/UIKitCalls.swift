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

    private static func describe(_ image: UIImage) -> Image {
        Image(size: image.size, scale: image.scale, png: image.pngData(), jpeg: image.jpegData(compressionQuality: 0.5))
    }
}
