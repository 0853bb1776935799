import Foundation
import CNSE
import NSEPush

/// What fully decoding an image found: its size and frame count.
package struct DecodedImage: Sendable, Hashable {
    package var width: Int
    package var height: Int
    package var frames: Int
    /// Recoverable damage the decoder reported (a truncated JPEG decodes with a grey lower part).
    package var warning: String?
}

/// Why an image does not decode.
package enum ImageDecodeError: Error, Sendable, Equatable {
    case corrupt(String)
    case tooManyPixels(width: Int, height: Int, limit: UInt64)
    /// Decoding stopped at one of `ImageDecodeLimits`: `needed` is what the file asked for in that limit's unit
    /// (bytes, pixels, frames, scans), `detail` the checker's own words.
    case overLimit(ImageDecodeLimit, needed: UInt64, limit: UInt64, detail: String)
    case unreadable(String)
}

/// Decodes every row of every frame with libpng, libjpeg-turbo or giflib, keeping one row in memory (a whole
/// coefficient buffer for progressive JPEGs), within `ImageDecodeLimits`.
package enum ImageDecoder {
    package static func decode(_ file: URL, as format: MediaFormat, limits: ImageDecodeLimits) throws(ImageDecodeError) -> DecodedImage? {
        let check: (UnsafePointer<CChar>, UnsafePointer<cnse_image_limits>, UnsafeMutablePointer<cnse_image_report>) -> cnse_image_status
        switch format {
        case .png: check = cnse_png_check
        case .jpeg: check = cnse_jpeg_check
        case .gif: check = cnse_gif_check
        default: return nil
        }
        var report = cnse_image_report()
        var cLimits = limits.cLimits
        let status = file.path.withCString { check($0, &cLimits, &report) }
        let message = withUnsafeBytes(of: report.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let limit: ImageDecodeLimit
        switch status {
        case CNSE_IMAGE_OK:
            return DecodedImage(
                width: Int(report.width), height: Int(report.height), frames: Int(report.frames),
                warning: report.warnings > 0 ? message : nil)
        case CNSE_IMAGE_TOO_MANY_PIXELS:
            throw .tooManyPixels(width: Int(report.width), height: Int(report.height), limit: limits.maxPixels)
        case CNSE_IMAGE_IO_ERROR:
            throw .unreadable(message)
        case CNSE_IMAGE_OVER_MEMORY_LIMIT: limit = .memory
        case CNSE_IMAGE_OVER_WORK_LIMIT: limit = .pixelWork
        case CNSE_IMAGE_OVER_FRAME_LIMIT: limit = .frames
        case CNSE_IMAGE_OVER_SCAN_LIMIT: limit = .scans
        default:
            throw .corrupt(message)
        }
        throw .overLimit(limit, needed: report.needed, limit: report.limit, detail: message)
    }
}
