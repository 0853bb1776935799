// The attached image's size in pixels. This file imports only CleverTapSDK, whose umbrella header brings Foundation
// and UIKit, as files written against the framework do.
import CleverTapSDK

enum AttachedImage {
    static func pixelSize(of url: URL?) -> CGSize? {
        guard let url, let image = UIImage(contentsOfFile: url.path) else { return nil }
        return CGSize(width: image.size.width * image.scale, height: image.size.height * image.scale)
    }
}
