// The C image checkers (CNSE) against real files written by real encoders (CImageFixtures), and against
// damaged, truncated, oversized and random files made from them.

import CImageFixtures
import CNSE
import Foundation
import Testing

// Serialized: these decode thousands of files synchronously, and in parallel they would take every thread of
// the cooperative pool, starving the tests that time extensions against their budget.
@Suite(.serialized)
struct ImageCheckTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: Valid images

    @Test(arguments: [false, true])
    func validPNG(interlaced: Bool) throws {
        let url = directory.file("valid.png")
        try #require(cimagefixtures_write_png(url.path, 67, 45, interlaced ? 1 : 0, 7) == 0)
        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.width == 67)
        #expect(result.report.height == 45)
        #expect(result.report.frames == 1)
        #expect(result.report.warnings == 0)
        #expect(result.message == "")
    }

    @Test(arguments: [false, true])
    func validJPEG(progressive: Bool) throws {
        let url = directory.file("valid.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 123, 77, 85, progressive ? 1 : 0, 7) == 0)
        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.width == 123)
        #expect(result.report.height == 77)
        #expect(result.report.frames == 1)
        #expect(result.report.warnings == 0)
        #expect(result.message == "")
    }

    @Test(arguments: [UInt32(1), 2, 7])
    func validGIF(frames: UInt32) throws {
        let url = directory.file("valid.gif")
        try #require(cimagefixtures_write_gif(url.path, 50, 31, frames, 7) == 0)
        let result = ImageFormat.gif.check(url)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.width == 50)
        #expect(result.report.height == 31)
        #expect(result.report.frames == frames)
        #expect(result.report.warnings == 0)
        #expect(result.message == "")
    }

    @Test func fixturesAreDeterministic() throws {
        for format in ImageFormat.allCases {
            let first = directory.file("first.\(format.rawValue)")
            let second = directory.file("second.\(format.rawValue)")
            try format.write(first, width: 40, height: 30, seed: 99)
            try format.write(second, width: 40, height: 30, seed: 99)
            #expect(try first.readBytes() == second.readBytes(), "\(format)")
        }
    }

    // MARK: PNG damage

    @Test func pngWithAFlippedByteInIDATIsCorrupt() throws {
        let url = directory.file("flipped.png")
        try ImageFormat.png.write(url, width: 64, height: 64)
        var bytes = try url.readBytes()
        let idat = try #require(PNGBytes.chunks(in: bytes).first { $0.type == "IDAT" })
        bytes[idat.dataStart + idat.length / 2] ^= 0x01
        try url.write(bytes: bytes)

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message != "")
    }

    enum TextChunkPlace: String, CaseIterable, Sendable {
        /// Read by png_read_info.
        case beforeImageData
        /// Read only by png_read_end.
        case afterImageData
    }

    /// libpng only warns about a bad CRC in an ancillary chunk by default; iOS rejects the file, and so do we.
    @Test(arguments: TextChunkPlace.allCases, [true, false])
    func pngTextChunk(place: TextChunkPlace, validCRC: Bool) throws {
        let url = directory.file("text.png")
        try ImageFormat.png.write(url, width: 20, height: 20)
        var bytes = try url.readBytes()
        let chunks = PNGBytes.chunks(in: bytes)
        let insertAt: Int
        switch place {
        case .beforeImageData: insertAt = try #require(chunks.first { $0.type == "IHDR" }).end
        case .afterImageData: insertAt = try #require(chunks.last { $0.type == "IDAT" }).end
        }
        let text = PNGBytes.chunk("tEXt", Array("Comment\u{0}made by nse tests".utf8), validCRC: validCRC)
        bytes.insert(contentsOf: text, at: insertAt)
        try url.write(bytes: bytes)

        let result = ImageFormat.png.check(url)
        if validCRC {
            #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
            #expect(result.report.warnings == 0)
        } else {
            #expect(result.status == CNSE_IMAGE_CORRUPT)
            #expect(result.message.contains("CRC"), "\(result.message)")
        }
    }

    /// Text chunks cannot change the picture, so libpng is told to skip them unread (CRC still checked): a
    /// zTXt that does not even inflate passes, and a zTXt bomb costs nothing.
    @Test func pngMetadataChunksAreSkippedButCRCChecked() throws {
        let url = directory.file("ztxt.png")
        try ImageFormat.png.write(url, width: 20, height: 20)
        var bytes = try url.readBytes()
        let ihdr = try #require(PNGBytes.chunks(in: bytes).first { $0.type == "IHDR" })
        let ztxt = PNGBytes.chunk("zTXt", Array("Comment\u{0}\u{0}this is not a zlib stream".utf8))
        bytes.insert(contentsOf: ztxt, at: ihdr.end)
        try url.write(bytes: bytes)

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.warnings == 0, "\(result.message)")
    }

    /// A chunk header claiming 2 GB in a small file must fail on the missing data, without allocating 2 GB.
    @Test func pngChunkClaimingTwoGigabytesIsCorrupt() throws {
        let url = directory.file("claim.png")
        try ImageFormat.png.write(url, width: 20, height: 20)
        var bytes = try url.readBytes()
        let ihdr = try #require(PNGBytes.chunks(in: bytes).first { $0.type == "IHDR" })
        bytes.insert(contentsOf: PNGBytes.bigEndian(0x7FFF_FF00) + Array("tEXtComment\u{0}abc".utf8), at: ihdr.end)
        try url.write(bytes: bytes)

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message.contains("truncated"), "\(result.message)")
        #expect(result.report.width == 20)
    }

    @Test func truncatedPNGIsCorrupt() throws {
        let url = directory.file("half.png")
        try ImageFormat.png.write(url, width: 64, height: 64)
        let bytes = try url.readBytes()
        try url.write(bytes: Array(bytes.prefix(bytes.count / 2)))

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message.contains("truncated"), "\(result.message)")
        #expect(result.report.width == 64)
    }

    @Test func pngWithoutIENDIsCorrupt() throws {
        let url = directory.file("no-iend.png")
        try ImageFormat.png.write(url, width: 16, height: 16)
        let bytes = try url.readBytes()
        #expect(PNGBytes.chunks(in: bytes).last?.type == "IEND")
        try url.write(bytes: Array(bytes.dropLast(12)))

        let result = ImageFormat.png.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
    }

    /// Every byte of a PNG is covered by the signature, a length or a CRC, so any single flipped byte must be
    /// caught; this also runs libpng through many error paths (worth doing under AddressSanitizer).
    @Test func everySingleByteFlipInAPNGIsCorrupt() throws {
        let url = directory.file("small.png")
        try ImageFormat.png.write(url, width: 8, height: 6)
        let original = try url.readBytes()
        let damaged = directory.file("damaged.png")
        var missed: [Int] = []
        for offset in original.indices {
            var bytes = original
            bytes[offset] ^= UInt8(truncatingIfNeeded: offset * 37 + 1) | 1
            try damaged.write(bytes: bytes)
            let result = ImageFormat.png.check(damaged)
            if result.status != CNSE_IMAGE_CORRUPT {
                missed.append(offset)
            }
            #expect(result.report.messageIsTerminated)
        }
        #expect(missed.isEmpty, "flips not reported as CORRUPT at offsets \(missed) of \(original.count)")
    }

    // MARK: PNG headers that claim too much

    @Test func pngClaiming100000By100000IsRejectedBeforeDecoding() throws {
        let url = directory.file("huge.png")
        try url.write(
            bytes: PNGBytes.signature + PNGBytes.ihdr(width: 100_000, height: 100_000)
                + PNGBytes.chunk("IDAT", PNGBytes.emptyZlibStream) + PNGBytes.chunk("IEND", []))

        let check = ImageFormat.png.check(url, maxPixels: 100_000_000)
        #expect(check.status == CNSE_IMAGE_TOO_MANY_PIXELS, "\(check.message)")
        #expect(check.report.width == 100_000)
        #expect(check.report.height == 100_000)
        #expect(check.message.contains("100000"), "\(check.message)")
    }

    /// A header within the limit but with almost no data must fail on the data, not on memory: only one row
    /// (150 KB here) is ever allocated, never the 300 MB the header describes.
    @Test func pngClaimingALargeImageWithoutTheDataIsCorrupt() throws {
        let url = directory.file("empty-large.png")
        try url.write(
            bytes: PNGBytes.signature + PNGBytes.ihdr(width: 50_000, height: 2_000)
                + PNGBytes.chunk("IDAT", PNGBytes.emptyZlibStream) + PNGBytes.chunk("IEND", []))

        let result = ImageFormat.png.check(url, maxPixels: 100_000_000)
        #expect(result.status == CNSE_IMAGE_CORRUPT, "\(result.message)")
        #expect(result.report.width == 50_000)
    }

    @Test func crc32MatchesTheStandardCheckValues() {
        #expect(PNGBytes.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGBytes.chunk("IEND", []).suffix(4) == [0xAE, 0x42, 0x60, 0x82])
    }

    // MARK: JPEG damage

    /// libjpeg pads a truncated scan with grey and only warns: the status stays OK and the caller decides.
    @Test(arguments: [false, true])
    func truncatedJPEGIsAWarning(progressive: Bool) throws {
        let url = directory.file("half.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 128, 96, 90, progressive ? 1 : 0, 3) == 0)
        let bytes = try url.readBytes()
        try url.write(bytes: Array(bytes.prefix(bytes.count / 2)))

        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.warnings > 0)
        #expect(result.message != "")
        #expect(result.report.width == 128)
        #expect(result.report.height == 96)
    }

    @Test func jpegCutInsideItsHeaderIsCorrupt() throws {
        let url = directory.file("header-only.jpg")
        try ImageFormat.jpeg.write(url, width: 64, height: 64)
        let bytes = try url.readBytes()
        try url.write(bytes: Array(bytes.prefix(100)))

        let result = ImageFormat.jpeg.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT, "\(result.message)")
    }

    /// Repeating a progressive file's last scan is legal-looking (libjpeg warns, "Inconsistent progression
    /// sequence") but each copy re-walks the whole coefficient buffer: past 500 scans (the default of
    /// --max-scans) the file is refused.
    @Test(arguments: [50, 600])
    func progressiveJPEGScanLimit(extraScans: Int) throws {
        let url = directory.file("scans.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 64, 64, 80, 1, 3) == 0)
        let bytes = try url.readBytes()
        // Entropy-coded data stuffs every 0xFF with 0x00, so these markers cannot occur inside it.
        let lastScan = try #require(lastIndex(of: [0xFF, 0xDA], in: bytes))
        let end = try #require(lastIndex(of: [0xFF, 0xD9], in: bytes))
        let scan = Array(bytes[lastScan..<end])
        var repeated = Array(bytes[..<end])
        for _ in 0..<extraScans {
            repeated += scan
        }
        try url.write(bytes: repeated + bytes[end...])

        let result = ImageFormat.jpeg.check(url)
        #expect(result.report.warnings > 0)
        if extraScans < 500 {
            #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        } else {
            #expect(result.status == CNSE_IMAGE_OVER_SCAN_LIMIT)
            #expect(result.message.contains("500 scans"), "\(result.message)")
            #expect(result.report.needed == 501 && result.report.limit == 500)
        }
    }

    private func lastIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.indices.dropLast().last { bytes[$0] == marker[0] && bytes[$0 + 1] == marker[1] }
    }

    // MARK: GIF damage

    @Test(arguments: [UInt32(1), 3])
    func gifTruncatedMidFrameIsCorrupt(frames: UInt32) throws {
        let url = directory.file("cut.gif")
        try #require(cimagefixtures_write_gif(url.path, 64, 64, frames, 5) == 0)
        let bytes = try url.readBytes()
        try url.write(bytes: Array(bytes.prefix(bytes.count * 6 / 10)))

        let result = ImageFormat.gif.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message.contains("truncated"), "\(result.message)")
        #expect(result.report.frames >= 1)
        #expect(result.report.width == 64)
    }

    @Test func gifWithoutAnyFrameIsCorrupt() throws {
        let url = directory.file("empty.gif")
        try #require(cimagefixtures_write_gif(url.path, 10, 10, 0, 1) == 0)

        let result = ImageFormat.gif.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message == "no image in the file")
        #expect(result.report.frames == 0)
    }

    @Test(arguments: [UInt32(10_000), 10_001])
    func gifFrameLimit(frames: UInt32) throws {
        let url = directory.file("many-frames.gif")
        try #require(cimagefixtures_write_gif(url.path, 2, 2, frames, 1) == 0)

        let result = ImageFormat.gif.check(url)
        if frames <= 10_000 {
            #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
            #expect(result.report.frames == frames)
        } else {
            #expect(result.status == CNSE_IMAGE_OVER_FRAME_LIMIT)
            #expect(result.message.contains("10000 frames"), "\(result.message)")
            #expect(result.report.frames == 10_000)
            #expect(result.report.needed == 10_001 && result.report.limit == 10_000)
        }
    }

    /// The frame, not only the logical screen, is checked against the limit.
    @Test func gifFrameLargerThanItsScreenIsCheckedAgainstTheLimit() throws {
        let url = directory.file("big-frame.gif")
        try ImageFormat.gif.write(url, width: 100, height: 80)
        var bytes = try url.readBytes()
        bytes.replaceSubrange(6..<10, with: [10, 0, 10, 0])  // logical screen 10 x 10, little-endian
        try url.write(bytes: bytes)

        let result = ImageFormat.gif.check(url, maxPixels: 1_000)
        #expect(result.status == CNSE_IMAGE_TOO_MANY_PIXELS, "\(result.message)")
        #expect(result.report.width == 10)
        #expect(result.report.height == 10)
        #expect(result.message.contains("100 x 80"), "\(result.message)")
    }

    // MARK: Every format

    @Test(arguments: ImageFormat.allCases)
    func tooManyPixels(format: ImageFormat) throws {
        let url = directory.file("limit.\(format.rawValue)")
        try format.write(url, width: 100, height: 80)

        let over = format.check(url, maxPixels: 7_999)
        #expect(over.status == CNSE_IMAGE_TOO_MANY_PIXELS)
        #expect(over.report.width == 100)
        #expect(over.report.height == 80)
        #expect(over.message.contains("8000"), "\(over.message)")

        let exactly = format.check(url, maxPixels: 8_000)
        #expect(exactly.status == CNSE_IMAGE_OK, "\(exactly.message)")
    }

    @Test(arguments: ImageFormat.allCases)
    func missingFileIsAnIOError(format: ImageFormat) {
        let result = format.check(directory.file("does-not-exist.\(format.rawValue)"))
        #expect(result.status == CNSE_IMAGE_IO_ERROR)
        #expect(result.message.contains("No such file"), "\(result.message)")
        #expect(result.report.width == 0)
    }

    @Test(arguments: ImageFormat.allCases)
    func emptyFileIsCorrupt(format: ImageFormat) throws {
        let url = directory.file("empty.\(format.rawValue)")
        try url.write(bytes: [])
        let result = format.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message != "")
    }

    @Test(arguments: ImageFormat.allCases, [UInt64(1), 2, 3, 4])
    func randomBytesAreCorrupt(format: ImageFormat, seed: UInt64) throws {
        var random = SeededBytes(seed: seed)
        let url = directory.file("random.\(format.rawValue)")
        try url.write(bytes: random.bytes(Int(seed) * 997))

        let result = format.check(url)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message != "")
        #expect(result.report.messageIsTerminated)
    }

    /// Random data behind a genuine signature reaches much further into each decoder than pure noise does.
    @Test(arguments: ImageFormat.allCases)
    func randomBytesAfterAValidSignatureNeverPass(format: ImageFormat) throws {
        let signature: [UInt8]
        switch format {
        case .png: signature = PNGBytes.signature
        case .jpeg: signature = [0xFF, 0xD8]
        case .gif: signature = Array("GIF89a".utf8)
        }
        let url = directory.file("signed-random.\(format.rawValue)")
        for seed in UInt64(1)...64 {
            var random = SeededBytes(seed: seed)
            try url.write(bytes: signature + random.bytes(64 + Int(seed) * 31))
            let result = format.check(url)
            #expect(result.status != CNSE_IMAGE_IO_ERROR, "seed \(seed): \(result.message)")
            #expect(result.status != CNSE_IMAGE_OK || result.report.warnings > 0, "seed \(seed) passed")
            #expect(result.report.messageIsTerminated)
        }
    }

    /// Byte flips all through a valid JPEG and GIF: whatever the verdict, no crash and no I/O error.
    @Test(arguments: [ImageFormat.jpeg, .gif])
    func byteFlipsNeverCrash(format: ImageFormat) throws {
        let url = directory.file("small.\(format.rawValue)")
        try format.write(url, width: 24, height: 17)
        let original = try url.readBytes()
        let damaged = directory.file("damaged.\(format.rawValue)")
        var random = SeededBytes(seed: 42)
        for _ in 0..<300 {
            var bytes = original
            let offset = Int(random.next() % UInt64(bytes.count))
            bytes[offset] ^= UInt8(truncatingIfNeeded: random.next()) | 1
            try damaged.write(bytes: bytes)
            let result = format.check(damaged)
            #expect(result.status != CNSE_IMAGE_IO_ERROR, "offset \(offset): \(result.message)")
            #expect(result.report.messageIsTerminated)
        }
    }

    /// The checkers keep no global state: many at once on several threads give the same answers as one.
    @Test func checkersRunConcurrently() async throws {
        var files: [(ImageFormat, URL)] = []
        for format in ImageFormat.allCases {
            let url = directory.file("concurrent.\(format.rawValue)")
            try format.write(url, width: 90, height: 70)
            files.append((format, url))
            let truncated = directory.file("concurrent-truncated.\(format.rawValue)")
            let bytes = try url.readBytes()
            try truncated.write(bytes: Array(bytes.prefix(bytes.count / 2)))
            files.append((format, truncated))
        }
        let expected = files.map { format, url in format.check(url) }
        let work = files
        let results = await withTaskGroup(of: (Int, cnse_image_status, UInt32).self) { group in
            for round in 0..<8 {
                for (index, (format, url)) in work.enumerated() {
                    group.addTask {
                        _ = round
                        let result = format.check(url)
                        return (index, result.status, result.report.warnings)
                    }
                }
            }
            var all: [(Int, cnse_image_status, UInt32)] = []
            for await result in group {
                all.append(result)
            }
            return all
        }
        #expect(results.count == files.count * 8)
        for (index, status, warnings) in results {
            #expect(status == expected[index].status)
            #expect(warnings == expected[index].report.warnings)
        }
    }
}
