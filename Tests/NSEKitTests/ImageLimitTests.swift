// The hostile images, each made small on disk with the real encoders, each stopped by the limit that
// bounds it (ImageDecodeLimits) with a precise report: what it needed, against which limit. None of these may
// allocate the memory or spend the time their headers ask for; the figures asserted are the checkers' own.

import CImageFixtures
import CNSE
import Foundation
import NSEMediaServer
@testable import NSEPush
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEReports
@testable import NSEBatch
import Testing
import NSEHarness

struct ImageLimitTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A JPEG written with `scans`, then its frame header patched to claim `claimedWidth` x `claimedHeight`.
    private func jpeg(
        _ name: String, components: Int32, scans: cimagefixtures_jpeg_scans, scanCount: UInt32 = 0,
        width: UInt32 = 16, height: UInt32 = 16, claimedWidth: UInt32? = nil, claimedHeight: UInt32? = nil
    ) throws -> URL {
        let url = directory.file(name)
        try #require(cimagefixtures_write_jpeg_scans(url.path, width, height, components, scans, scanCount, 3) == 0)
        if let claimedWidth, let claimedHeight {
            try #require(cimagefixtures_patch_jpeg_size(url.path, claimedWidth, claimedHeight) == 0)
        }
        return url
    }

    private func limits(_ change: (inout ImageDecodeLimits) -> Void) -> ImageDecodeLimits {
        var limits = ImageDecodeLimits()
        change(&limits)
        return limits
    }

    // MARK: Memory

    /// 100,000,000 x 1, 16-bit RGBA: each row is 800 MB and libpng holds two besides ours (2.3 GB without
    /// the limit). Refused from the header, before any row is allocated.
    @Test func aHundredMillionPixelWide16BitPNGIsRefusedForItsRows() throws {
        let url = directory.file("wide.png")
        let ihdr = PNGBytes.chunk("IHDR", PNGBytes.bigEndian(100_000_000) + PNGBytes.bigEndian(1) + [16, 6, 0, 0, 0])
        try url.write(bytes: PNGBytes.signature + ihdr + PNGBytes.chunk("IDAT", PNGBytes.emptyZlibStream) + PNGBytes.chunk("IEND", []))

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_OVER_MEMORY_LIMIT, "\(result.message)")
        // Three rows of 800,000,000 bytes, plus the few kilobytes libpng holds already.
        #expect(result.report.needed >= 2_400_000_000 && result.report.needed < 2_400_000_000 + 1_048_576)
        #expect(result.report.limit == 24 * 1_048_576)
        #expect(result.message.contains("rows of 800000000 bytes"), "\(result.message)")
        #expect(result.report.width == 100_000_000)
    }

    /// A real wide PNG passes under the default and is refused, with its exact row need, under a lower limit.
    @Test func aWidePNGWithinTheLimitDecodesAndOverItIsRefused() throws {
        let url = directory.file("wide-ok.png")
        try #require(cimagefixtures_write_png(url.path, 1_000_000, 2, 0, 1) == 0)

        let fits = ImageFormat.png.check(url)
        #expect(fits.status == CNSE_IMAGE_OK, "\(fits.message)")

        let over = ImageFormat.png.check(url, limits: limits { $0.maxMemory = 8 * 1_048_576 })
        #expect(over.status == CNSE_IMAGE_OVER_MEMORY_LIMIT, "\(over.message)")
        #expect(over.report.needed >= 9_000_000 && over.report.needed < 9_000_000 + 1_048_576)
        #expect(over.report.limit == 8 * 1_048_576)
    }

    /// A 1 KB progressive CMYK JPEG whose header says 10000 x 10000 (796 MB without a limit): its coefficient
    /// buffer, 1250 x 1250 blocks x 4 components x 128 bytes, is refused before it is allocated.
    @Test func aProgressiveCMYKJPEGClaiming10000By10000IsRefusedForItsCoefficients() throws {
        let url = try jpeg("cmyk.jpg", components: 4, scans: CIMAGEFIXTURES_SCANS_PROGRESSIVE, claimedWidth: 10_000, claimedHeight: 10_000)

        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_OVER_MEMORY_LIMIT, "\(result.message)")
        #expect(result.message.contains("800000000 for its whole-image coefficient buffer: 4 components"), "\(result.message)")
        #expect(result.report.needed > 800_000_000)
        #expect(result.report.scans == 0)
    }

    /// Baseline is not always O(width): one scan per component (non-interleaved) needs the whole-image buffer
    /// too (605 MB without a limit). Refused from the header; a small one still decodes.
    @Test func aNonInterleavedBaselineJPEGNeedsAndIsRefusedItsWholeImageBuffer() throws {
        let small = try jpeg("noninterleaved-small.jpg", components: 3, scans: CIMAGEFIXTURES_SCANS_NONINTERLEAVED, width: 64, height: 48)
        let fine = ImageFormat.jpeg.check(small)
        #expect(fine.status == CNSE_IMAGE_OK, "\(fine.message)")
        #expect(fine.report.scans == 3)

        let url = try jpeg("noninterleaved.jpg", components: 3, scans: CIMAGEFIXTURES_SCANS_NONINTERLEAVED, claimedWidth: 10_000, claimedHeight: 10_000)
        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_OVER_MEMORY_LIMIT, "\(result.message)")
        // 4:2:0: luma 1250 x 1250 blocks, each chroma 625 x 625, 128 bytes a block.
        #expect(result.message.contains("multi-scan JPEG needs"), "\(result.message)")
        #expect(result.message.contains("300000000 for its whole-image coefficient buffer: 3 components, one scan per component"), "\(result.message)")
    }

    /// The 499-scan 10000 x 10000 progressive file (32 s without a limit): its 200 MB coefficient buffer is over
    /// the memory limit, so it stops before the first scan.
    @Test func aProgressiveJPEGOf499ScansClaiming10000By10000IsRefusedBeforeItsFirstScan() throws {
        let url = try jpeg("scans.jpg", components: 1, scans: CIMAGEFIXTURES_SCANS_MANY, scanCount: 499, claimedWidth: 10_000, claimedHeight: 10_000)

        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_OVER_MEMORY_LIMIT, "\(result.message)")
        #expect(result.message.contains("200000000 for its whole-image coefficient buffer: 1 components"), "\(result.message)")
        #expect(result.report.pixel_work == 0)
    }

    // MARK: Pixel work

    /// Every scan of a progressive JPEG walks the whole image: 400 scans of 256 x 256 are 26 million pixels of
    /// work, within the default; under a limit of 1,000,000 the 16th scan is refused before it is decoded.
    @Test func aProgressiveJPEGStopsAtTheScanThatWouldPassThePixelWorkLimit() throws {
        let url = try jpeg("many.jpg", components: 1, scans: CIMAGEFIXTURES_SCANS_MANY, scanCount: 400, width: 256, height: 256)

        let fine = ImageFormat.jpeg.check(url)
        #expect(fine.status == CNSE_IMAGE_OK, "\(fine.message)")
        #expect(fine.report.scans == 400)
        #expect(fine.report.pixel_work == 400 * 65_536)

        let result = ImageFormat.jpeg.check(url, limits: limits { $0.maxPixelWork = 1_000_000 })
        #expect(result.status == CNSE_IMAGE_OVER_WORK_LIMIT, "\(result.message)")
        #expect(result.report.scans == 15)
        #expect(result.report.pixel_work == 15 * 65_536)
        #expect(result.report.needed == 16 * 65_536 && result.report.limit == 1_000_000)
        #expect(result.message.contains("scan 16"), "\(result.message)")
    }

    /// Frames add up: 30 frames of 200 x 200 are 1.2 million pixels; under a limit of 1,000,000 the 26th frame
    /// is refused before its LZW data is read (146 frames of 10000 x 10000 take 81 s without a limit).
    @Test func aGIFStopsAtTheFrameThatWouldPassThePixelWorkLimit() throws {
        let url = directory.file("frames.gif")
        try #require(cimagefixtures_write_gif(url.path, 200, 200, 30, 2) == 0)

        let result = ImageFormat.gif.check(url, limits: limits { $0.maxPixelWork = 1_000_000 })
        #expect(result.status == CNSE_IMAGE_OVER_WORK_LIMIT, "\(result.message)")
        #expect(result.report.frames == 26)
        #expect(result.report.pixel_work == 1_000_000)
        #expect(result.report.needed == 1_040_000)
        #expect(result.message.contains("frame 26 (200 x 200)"), "\(result.message)")
    }

    @Test func aGIFPastTheFrameLimitStopsAtTheFirstFrameOver() throws {
        let url = directory.file("tiny-frames.gif")
        try #require(cimagefixtures_write_gif(url.path, 1, 1, 12, 2) == 0)

        let result = ImageFormat.gif.check(url, limits: limits { $0.maxFrames = 10 })
        #expect(result.status == CNSE_IMAGE_OVER_FRAME_LIMIT, "\(result.message)")
        #expect(result.report.needed == 11 && result.report.limit == 10)
    }

    /// A PNG's work is its pixel count, charged before any row is read.
    @Test func aPNGOverThePixelWorkLimitIsRefusedFromItsHeader() throws {
        let url = directory.file("work.png")
        try #require(cimagefixtures_write_png(url.path, 100, 100, 1, 1) == 0)

        let result = ImageFormat.png.check(url, limits: limits { $0.maxPixelWork = 9_999 })
        #expect(result.status == CNSE_IMAGE_OVER_WORK_LIMIT, "\(result.message)")
        #expect(result.report.needed == 10_000)
    }

    // MARK: What the user reads

    /// Each limit has its own code on iOS, and the message names the limit, its option, and that what iOS
    /// does with such a file is unknown.
    @Test(arguments: ImageDecodeLimit.allCases)
    func eachLimitHasItsCodeAndAMessageNamingItsOption(limit: ImageDecodeLimit) async throws {
        let file = directory.file("hostile")
        var profile = loopbackProfile()
        switch limit {
        case .memory:
            try #require(cimagefixtures_write_jpeg_scans(file.path, 16, 16, 4, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 1) == 0)
            try #require(cimagefixtures_patch_jpeg_size(file.path, 10_000, 10_000) == 0)
        case .pixelWork:
            try #require(cimagefixtures_write_jpeg_scans(file.path, 64, 64, 1, CIMAGEFIXTURES_SCANS_MANY, 40, 1) == 0)
            profile.imageLimits.maxPixelWork = 64 * 64 * 10
        case .frames:
            try #require(cimagefixtures_write_gif(file.path, 4, 4, 5, 1) == 0)
            profile.imageLimits.maxFrames = 4
        case .scans:
            try #require(cimagefixtures_write_jpeg_scans(file.path, 16, 16, 1, CIMAGEFIXTURES_SCANS_MANY, 40, 1) == 0)
            profile.imageLimits.maxScans = 20
        }
        let bytes = Array(try Data(contentsOf: file))
        let isGIF = limit == .frames
        let path = isGIF ? "/hostile.gif" : "/hostile.jpg"
        let server = try cdn([path: .ok(bytes, contentType: isGIF ? "image/gif" : "image/jpeg")])
        defer { server.stop() }

        let result = await Pipeline(device: profile, changes: ContentChanges(titleSuffix: " [modified]"))
            .run(firebasePayload(imageURL: server.baseURL + path), input: "test.json", attachmentDirectory: nil)

        #expect(result.errorCodes == [limit.code])
        #expect(!result.imageShown)
        let message = try #require(result.diagnostics.first { $0.code == limit.code }?.message)
        #expect(message.contains(limit.option), "\(message)")
        #expect(message.contains("What iOS does with such a file is unknown"), "\(message)")
    }

    /// The Android check uses the same decoders on the same limits.
    @Test func theAndroidCheckStopsAtTheSameLimits() async throws {
        let file = directory.file("cmyk.jpg")
        try #require(cimagefixtures_write_jpeg_scans(file.path, 16, 16, 4, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 1) == 0)
        try #require(cimagefixtures_patch_jpeg_size(file.path, 10_000, 10_000) == 0)
        let server = try cdn(["/a.jpg": .ok(Array(try Data(contentsOf: file)), contentType: "image/jpeg")])
        defer { server.stop() }
        let message = try #require(FCMMessage(root: ["message": .object([
            "token": .string("t"), "notification": .object(["title": .string("Sale"), "image": .string(server.baseURL + "/a.jpg")]),
        ])]))

        let result = await AndroidImageCheck(limits: DeviceProfile().imageLimits, budget: .seconds(2)).verify(message)
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.androidImageDecodeLimit])
        #expect(errors.first?.message.contains("--max-decode-memory") == true)
        #expect(!result.imageShown)
    }
}
