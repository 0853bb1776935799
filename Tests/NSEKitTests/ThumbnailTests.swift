import Foundation
import CImageFixtures
import CNSE
@testable import NSEBatch
@testable import NSEMedia
@testable import NSEPush
@testable import NSEReports
import Testing

/// The report's previews, made by scaled decoding: size, clipping, frames, limits, and the bytes they take.
struct ThumbnailTests {
    struct Pixels {
        var status: Int32
        var width: Int
        var height: Int
        var frame: Int
        var message: String
        var rgba: [UInt8]

        /// The mean of one channel (0 red, 1 green, 2 blue, 3 alpha) over the whole preview.
        func mean(_ channel: Int) -> Double {
            let values = stride(from: channel, to: rgba.count, by: 4).map { Double(rgba[$0]) }
            return values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
        }
    }

    static func request(
        maxWidth: UInt32 = 240, maxHeight: UInt32 = 360, clip: (Double, Double, Double, Double)? = nil, frame: UInt32 = 0
    ) -> cnse_thumbnail_request {
        var request = cnse_thumbnail_request()
        request.max_width = maxWidth
        request.max_height = maxHeight
        request.max_bytes = 60_000
        request.frame = frame
        if let clip { (request.clip_x, request.clip_y, request.clip_width, request.clip_height) = clip }
        return request
    }

    static func pixels(
        _ file: URL, _ format: cnse_thumbnail_format, _ request: cnse_thumbnail_request, limits: ImageDecodeLimits = ImageDecodeLimits()
    ) -> Pixels {
        var request = request
        var cLimits = limits.cLimits
        var result = cnse_thumbnail_result()
        var rgba: UnsafeMutablePointer<UInt8>?
        let status = file.path.withCString { cnse_thumbnail_pixels($0, format, &cLimits, &request, &result, &rgba) }
        defer { cnse_thumbnail_free_pixels(rgba) }
        let count = Int(result.width) * Int(result.height) * 4
        let message = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Pixels(
            status: status, width: Int(result.width), height: Int(result.height), frame: Int(result.frame), message: message,
            rgba: rgba.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    }

    static func write(_ folder: TemporaryFolder, _ name: String, _ encoder: (UnsafePointer<CChar>) -> Int32) throws -> URL {
        let file = folder.file(name)
        try #require(file.path.withCString(encoder) == 0)
        return file
    }

    @Test func jpegIsDecodedScaledAndAgreesWithThePNGOfTheSamePixels() throws {
        let folder = try TemporaryFolder()
        // The fixtures draw the same gradient whatever the format: both previews must average alike.
        let jpeg = try Self.write(folder, "a.jpg") { cimagefixtures_write_jpeg($0, 1600, 800, 95, 0, 3) }
        let png = try Self.write(folder, "a.png") { cimagefixtures_write_png($0, 1600, 800, 0, 3) }
        let fromJPEG = Self.pixels(jpeg, CNSE_THUMBNAIL_JPEG, Self.request())
        let fromPNG = Self.pixels(png, CNSE_THUMBNAIL_PNG, Self.request())
        #expect(fromJPEG.status == 0 && fromPNG.status == 0)
        #expect((fromJPEG.width, fromJPEG.height) == (240, 120))
        #expect((fromPNG.width, fromPNG.height) == (240, 120))
        for channel in 0..<3 {
            #expect(abs(fromJPEG.mean(channel) - fromPNG.mean(channel)) < 6, "channel \(channel)")
        }
        #expect(fromJPEG.mean(3) == 255)
    }

    @Test func clippingRectangleSelectsThePartOfTheImage() throws {
        let folder = try TemporaryFolder()
        // Red grows with x (0...199 here), so the right half is about 100 levels redder than the left.
        let png = try Self.write(folder, "g.png") { cimagefixtures_write_png($0, 200, 100, 0, 0) }
        let left = Self.pixels(png, CNSE_THUMBNAIL_PNG, Self.request(maxWidth: 120, maxHeight: 120, clip: (0, 0, 0.5, 1)))
        let right = Self.pixels(png, CNSE_THUMBNAIL_PNG, Self.request(maxWidth: 120, maxHeight: 120, clip: (0.5, 0, 0.5, 1)))
        #expect((left.width, left.height) == (100, 100))
        #expect((right.width, right.height) == (100, 100))
        #expect(right.mean(0) - left.mean(0) > 90)
        #expect(abs(right.mean(1) - left.mean(1)) < 3)
    }

    @Test func interlacedPNGPreviewMatchesTheProgressiveOne() throws {
        let folder = try TemporaryFolder()
        let plain = try Self.write(folder, "p.png") { cimagefixtures_write_png($0, 301, 157, 0, 9) }
        let interlaced = try Self.write(folder, "i.png") { cimagefixtures_write_png($0, 301, 157, 1, 9) }
        let a = Self.pixels(plain, CNSE_THUMBNAIL_PNG, Self.request())
        let b = Self.pixels(interlaced, CNSE_THUMBNAIL_PNG, Self.request())
        #expect(a.status == 0 && b.status == 0)
        #expect((a.width, a.height) == (b.width, b.height))
        for channel in 0..<4 {
            #expect(abs(a.mean(channel) - b.mean(channel)) < 3, "channel \(channel)")
        }
        #expect(b.mean(3) == 255, "every cell got rows: none is left transparent")
    }

    @Test func gifShowsTheRequestedFrameOrTheLast() throws {
        let folder = try TemporaryFolder()
        let gif = try Self.write(folder, "a.gif") { cimagefixtures_write_gif($0, 64, 64, 4, 5) }
        let first = Self.pixels(gif, CNSE_THUMBNAIL_GIF, Self.request())
        let third = Self.pixels(gif, CNSE_THUMBNAIL_GIF, Self.request(frame: 2))
        let past = Self.pixels(gif, CNSE_THUMBNAIL_GIF, Self.request(frame: 99))
        #expect(first.status == 0 && third.status == 0 && past.status == 0)
        #expect(first.frame == 0 && third.frame == 2 && past.frame == 3)
        #expect(first.rgba != third.rgba)
        #expect(first.mean(3) == 255)
    }

    @Test func imagesOverThePixelLimitAreRefusedBeforeDecoding() throws {
        let folder = try TemporaryFolder()
        let png = try Self.write(folder, "big.png") { cimagefixtures_write_png($0, 400, 300, 0, 1) }
        let jpeg = try Self.write(folder, "big.jpg") { cimagefixtures_write_jpeg($0, 400, 300, 80, 0, 1) }
        let gif = try Self.write(folder, "big.gif") { cimagefixtures_write_gif($0, 400, 300, 1, 1) }
        for (file, format) in [(png, CNSE_THUMBNAIL_PNG), (jpeg, CNSE_THUMBNAIL_JPEG), (gif, CNSE_THUMBNAIL_GIF)] {
            var limits = ImageDecodeLimits()
            limits.maxPixels = 100_000
            let refused = Self.pixels(file, format, Self.request(), limits: limits)
            #expect(refused.status == 2, "\(file.lastPathComponent): \(refused.message)")
            #expect(refused.rgba.isEmpty)
        }
    }

    @Test func previewsKeepToTheImageChecksLimits() throws {
        let folder = try TemporaryFolder()
        // A progressive JPEG keeps a whole-image coefficient buffer (about 2 bytes per sample) however small the preview.
        let progressive = try Self.write(folder, "p.jpg") { cimagefixtures_write_jpeg($0, 2000, 2000, 90, 1, 1) }
        let animation = try Self.write(folder, "a.gif") { cimagefixtures_write_gif($0, 100, 100, 5, 1) }
        var memory = ImageDecodeLimits()
        memory.maxMemory = 2 * 1_048_576
        var scans = ImageDecodeLimits()
        scans.maxScans = 3
        var frames = ImageDecodeLimits()
        frames.maxFrames = 2
        var work = ImageDecodeLimits()
        work.maxPixelWork = 25_000
        let cases: [(URL, cnse_thumbnail_format, ImageDecodeLimits, cnse_image_status)] = [
            (progressive, CNSE_THUMBNAIL_JPEG, memory, CNSE_IMAGE_OVER_MEMORY_LIMIT),
            (progressive, CNSE_THUMBNAIL_JPEG, scans, CNSE_IMAGE_OVER_SCAN_LIMIT),
            (animation, CNSE_THUMBNAIL_GIF, frames, CNSE_IMAGE_OVER_FRAME_LIMIT),
            (animation, CNSE_THUMBNAIL_GIF, work, CNSE_IMAGE_OVER_WORK_LIMIT),
        ]
        for (file, format, limits, expected) in cases {
            // The last frame is asked for, so a GIF must get past the limit to show it.
            let refused = Self.pixels(file, format, Self.request(frame: 99), limits: limits)
            #expect(refused.status == Int32(expected.rawValue), "\(file.lastPathComponent): \(refused.message)")
            #expect(refused.rgba.isEmpty && !refused.message.isEmpty)
        }
        #expect(Self.pixels(progressive, CNSE_THUMBNAIL_JPEG, Self.request()).status == 0, "within the default limits it draws")
    }

    @Test func damagedAndMissingFilesFailWithTheDecodersWords() throws {
        let folder = try TemporaryFolder()
        let png = try Self.write(folder, "t.png") { cimagefixtures_write_png($0, 300, 300, 0, 1) }
        let bytes = try Data(contentsOf: png)
        try bytes.prefix(bytes.count / 3).write(to: png)
        let truncated = Self.pixels(png, CNSE_THUMBNAIL_PNG, Self.request())
        #expect(truncated.status == 1)
        #expect(!truncated.message.isEmpty)
        let missing = Self.pixels(folder.file("none.jpg"), CNSE_THUMBNAIL_JPEG, Self.request())
        #expect(missing.status == 3)
    }

    @Test(arguments: [MediaFormat.jpeg, .png, .gif])
    func encodedPreviewsStayWithinTheirByteBudget(format: MediaFormat) throws {
        let folder = try TemporaryFolder()
        // Noisy, large images: the worst case for the encoder's output size.
        let file: URL = switch format {
        case .jpeg: try Self.write(folder, "n.jpg") { cimagefixtures_write_jpeg($0, 1200, 800, 100, 1, 11) }
        case .png: try Self.write(folder, "n.png") { cimagefixtures_write_png($0, 1200, 800, 1, 11) }
        default: try Self.write(folder, "n.gif") { cimagefixtures_write_gif($0, 600, 600, 3, 11) }
        }
        let expanded = try AttachmentPreview.make(file: file, format: format, size: .expanded, limits: ImageDecodeLimits()).get()
        let thumbnail = try AttachmentPreview.make(file: file, format: format, clip: ClippingRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), size: .thumbnail, limits: ImageDecodeLimits()).get()
        #expect(expanded.width <= 240 && expanded.height <= 360)
        #expect(thumbnail.width <= 120 && thumbnail.height <= 120)
        #expect(expanded.data.count + thumbnail.data.count < 60_000)
        #expect(expanded.data.starts(with: [0xFF, 0xD8, 0xFF]), "opaque previews are JPEG")
        #expect(expanded.dataURI.hasPrefix("data:image/jpeg;base64,"))
    }

    @Test func formatsTheReportCannotDrawSaySo() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("x.webp")
        try Data("RIFF\0\0\0\0WEBPVP8 ".utf8).write(to: file)
        let result = AttachmentPreview.make(file: file, format: .webp, size: .expanded, limits: ImageDecodeLimits())
        #expect(throws: PreviewError.self) { try result.get() }
    }
}
