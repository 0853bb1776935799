import Foundation
import CNSE

/// Why data does not decode to a bitmap, or a bitmap does not encode.
package enum BitmapError: Error, Sendable, Equatable {
    case unknownFormat
    case corrupt(String)
    /// The image is larger than the decoder may allocate; its size is known from the header.
    case tooManyPixels(width: Int, height: Int)
    case failed(String)
}

/// A whole decoded image, 4 bytes a pixel (RGBA, not premultiplied), as an app's own `UIImage` holds it.
/// The pixels live in one C allocation owned by this object; `bytes` is what it costs in memory.
package final class RGBABitmap: @unchecked Sendable {
    // Mutated only through `withMutablePixels` by the one drawing context that owns it (UIKit's renderer
    // draws on the thread that created it); everything else reads.
    private let pixels: UnsafeMutableRawBufferPointer
    package let width: Int
    package let height: Int

    /// Bytes of pixel memory: width x height x 4.
    package var bytes: Int { pixels.count }

    /// A transparent bitmap; nil when `width` x `height` x 4 does not fit in memory arithmetic.
    package init?(width: Int, height: Int) {
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixelCount <= Int.max / 4,
              let memory = calloc(pixelCount, 4) else { return nil }
        self.pixels = UnsafeMutableRawBufferPointer(start: memory, count: pixelCount * 4)
        self.width = width
        self.height = height
    }

    private init(adopting bitmap: cnse_bitmap) {
        width = Int(bitmap.width)
        height = Int(bitmap.height)
        pixels = UnsafeMutableRawBufferPointer(start: bitmap.rgba, count: width * height * 4)
    }

    deinit {
        free(pixels.baseAddress)
    }

    /// Decodes PNG, JPEG or GIF (its first frame) with libpng, libjpeg-turbo or giflib.
    package static func decode(_ data: Data, maxPixels: UInt64) throws(BitmapError) -> RGBABitmap {
        var bitmap = cnse_bitmap()
        let status = data.withUnsafeBytes { raw in
            cnse_decode_rgba(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, maxPixels, &bitmap)
        }
        let message = Self.text(of: bitmap.message)
        switch status {
        case CNSE_PIXELS_OK: return RGBABitmap(adopting: bitmap)
        case CNSE_PIXELS_UNKNOWN_FORMAT: throw .unknownFormat
        case CNSE_PIXELS_TOO_MANY_PIXELS: throw .tooManyPixels(width: Int(bitmap.width), height: Int(bitmap.height))
        case CNSE_PIXELS_CORRUPT: throw .corrupt(message)
        default: throw .failed(message)
        }
    }

    /// An 8-bit RGBA PNG of the pixels (libpng).
    package func pngData() throws(BitmapError) -> Data {
        try encode { cnse_encode_png($0, UInt32(width), UInt32(height), &$1) }
    }

    /// A baseline JPEG of the pixels at `quality` 0...1, alpha dropped (libjpeg-turbo).
    package func jpegData(quality: Double) throws(BitmapError) -> Data {
        let level = quality.isFinite ? Int32((min(max(quality, 0), 1) * 100).rounded()) : 75
        return try encode { cnse_encode_jpeg($0, UInt32(width), UInt32(height), max(level, 1), &$1) }
    }

    /// The colour of one pixel (for tests and drawing); nil outside the bitmap.
    package func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let offset = (y * width + x) * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    /// Draws `source` scaled into the rectangle (in this bitmap's pixels), nearest neighbour, source-over.
    /// Parts outside this bitmap are clipped.
    package func draw(_ source: RGBABitmap, x: Double, y: Double, width drawnWidth: Double, height drawnHeight: Double) {
        guard drawnWidth.isFinite, drawnHeight.isFinite, x.isFinite, y.isFinite, drawnWidth > 0, drawnHeight > 0 else { return }
        let left = max(0, Int(max(x, -1).rounded(.down))), top = max(0, Int(max(y, -1).rounded(.down)))
        let right = Int(min(x + drawnWidth, Double(width)).rounded(.up)), bottom = Int(min(y + drawnHeight, Double(height)).rounded(.up))
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            let sourceY = min(source.height - 1, max(0, Int(((Double(row) + 0.5 - y) / drawnHeight * Double(source.height)).rounded(.down))))
            for column in left..<right {
                let sourceX = min(source.width - 1, max(0, Int(((Double(column) + 0.5 - x) / drawnWidth * Double(source.width)).rounded(.down))))
                let from = (sourceY * source.width + sourceX) * 4, to = (row * width + column) * 4
                // Source-over with straight (not premultiplied) alpha.
                let sourceAlpha = Int(source.pixels[from + 3]), destinationAlpha = Int(pixels[to + 3])
                let outAlpha = sourceAlpha * 255 + destinationAlpha * (255 - sourceAlpha)
                guard outAlpha > 0 else { continue }
                for channel in 0..<3 {
                    let blended = Int(source.pixels[from + channel]) * sourceAlpha * 255 + Int(pixels[to + channel]) * destinationAlpha * (255 - sourceAlpha)
                    pixels[to + channel] = UInt8(clamping: blended / outAlpha)
                }
                pixels[to + 3] = UInt8(clamping: outAlpha / 255)
            }
        }
    }

    /// Fills the whole bitmap with one colour.
    package func fill(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            pixels[offset] = red
            pixels[offset + 1] = green
            pixels[offset + 2] = blue
            pixels[offset + 3] = alpha
        }
    }

    private func encode(_ body: (UnsafePointer<UInt8>, inout cnse_encoded) -> cnse_pixels_status) throws(BitmapError) -> Data {
        var encoded = cnse_encoded()
        guard let base = pixels.bindMemory(to: UInt8.self).baseAddress else { throw .failed("no pixels") }
        let status = body(base, &encoded)
        defer { cnse_encoded_free(&encoded) }
        guard status == CNSE_PIXELS_OK, let bytes = encoded.bytes else { throw .failed(Self.text(of: encoded.message)) }
        return Data(bytes: bytes, count: encoded.length)
    }

    private static func text<T>(of message: T) -> String {
        withUnsafeBytes(of: message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
