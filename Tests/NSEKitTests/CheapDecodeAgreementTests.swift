// The cheap decode paths nse validates with (PNG image data inflated by ISA-L with its filter bytes checked;
// JPEG at 1/8 scale; a GIF frame's LZW codes counted, not expanded) against the reference full decode (libpng
// unfiltering every row, libjpeg at full scale, giflib decoding every row): for every damage class either could
// miss, both must give the same status, size, frames, warnings and message.

import CImageFixtures
import CNSE
import Foundation
@testable import NSEPush
@testable import NSEMedia
@testable import NSEReports
@testable import NSEBatch
import Testing

@Suite(.serialized)
struct CheapDecodeAgreementTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Both paths over `url`; fails the test if they disagree in anything a user sees. Returns the cheap answer.
    @discardableResult
    private func agreed(_ url: URL, _ format: ImageFormat, limits: ImageDecodeLimits = ImageDecodeLimits(),
                        sourceLocation: SourceLocation = #_sourceLocation) -> ImageCheck {
        let cheap = format.check(url, limits: limits)
        var report = cnse_image_report()
        var cLimits = limits.cLimits
        let status = switch format {
        case .png: cnse_png_check_full(url.path, &cLimits, &report)
        case .jpeg: cnse_jpeg_check_full(url.path, &cLimits, &report)
        case .gif: cnse_gif_check_full(url.path, &cLimits, &report)
        }
        let full = ImageCheck(status: status, report: report)
        #expect(cheap.status == full.status, "status \(cheap.status) vs full \(full.status): \(cheap.message) | \(full.message)", sourceLocation: sourceLocation)
        #expect(cheap.report.width == full.report.width && cheap.report.height == full.report.height, sourceLocation: sourceLocation)
        #expect(cheap.report.frames == full.report.frames, sourceLocation: sourceLocation)
        #expect(cheap.report.warnings == full.report.warnings, "warnings: \(cheap.message) | \(full.message)", sourceLocation: sourceLocation)
        #expect(cheap.message == full.message, sourceLocation: sourceLocation)
        #expect(cheap.report.pixel_work == full.report.pixel_work, sourceLocation: sourceLocation)
        return cheap
    }

    // MARK: PNG image data, built by hand: stored deflate blocks, so each damage is exactly the one intended

    /// A PNG of `rows` (each a filter byte then the row's bytes) as one zlib stream of stored blocks, cut into
    /// IDAT chunks of `chunkSize` bytes. `header` replaces the zlib header; `adler` the Adler-32.
    private func png(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2, interlaced: Bool = false,
                     data: [UInt8], header: [UInt8] = [0x78, 0x01], adler: UInt32? = nil, chunkSize: Int = 1000,
                     huffman: Bool = false, afterStream: [UInt8] = [], afterData: [UInt8] = []) -> [UInt8] {
        var stream = header
        if huffman {
            stream += Self.fixedHuffmanBlock(data)
        } else {
            var offset = 0
            repeat {
                let block = Array(data[offset..<min(data.count, offset + 65535)])
                offset += block.count
                let last: UInt8 = offset >= data.count ? 1 : 0
                let length = UInt16(block.count)
                stream += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + block
            } while offset < data.count
        }
        stream += PNGBytes.bigEndian(adler ?? Self.adler32(data)) + afterStream
        var file = PNGBytes.signature
            + PNGBytes.chunk("IHDR", PNGBytes.bigEndian(width) + PNGBytes.bigEndian(height) + [bitDepth, colorType, 0, 0, interlaced ? 1 : 0])
        var start = 0
        while start < stream.count {
            file += PNGBytes.chunk("IDAT", Array(stream[start..<min(stream.count, start + chunkSize)]))
            start += chunkSize
        }
        return file + afterData + PNGBytes.chunk("IEND", [])
    }

    /// `data` as one final deflate block with the fixed Huffman codes, every byte a literal: unlike stored blocks,
    /// its end is not on a byte boundary, so an inflater reads past it into the bytes that follow.
    private static func fixedHuffmanBlock(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var bits: UInt32 = 0, count: UInt32 = 0
        func put(_ value: UInt32, _ width: UInt32) {
            bits |= value << count
            count += width
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                count -= 8
            }
        }
        // Huffman codes go most significant bit first.
        func code(_ value: UInt32, _ width: UInt32) {
            for bit in (0..<width).reversed() { put((value >> bit) & 1, 1) }
        }
        put(1, 1)  // the final block
        put(1, 2)  // fixed codes
        for byte in data {
            if byte < 144 { code(0x30 + UInt32(byte), 8) } else { code(0x190 + UInt32(byte) - 144, 9) }
        }
        code(0, 7)  // end of block
        if count > 0 { bytes.append(UInt8(truncatingIfNeeded: bits)) }
        return bytes
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// Rows of an 8-bit RGB image, each with `filter` (or the filter `filters` gives for that row).
    private func rows(width: Int, height: Int, filter: (Int) -> UInt8 = { UInt8($0 % 5) }) -> [UInt8] {
        (0..<height).flatMap { y in [filter(y)] + (0..<(width * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ y) } }
    }

    private func write(_ bytes: [UInt8], _ name: String = "built.png") throws -> URL {
        let url = directory.file(name)
        try url.write(bytes: bytes)
        return url
    }

    @Test func handBuiltPNGPasses() throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30)))
        let result = agreed(url, .png)
        #expect(result.status == CNSE_IMAGE_OK)
        #expect(result.report.decoded_in_full == 0, "the cheap path vouches")
    }

    /// A filter byte past 4 decodes with zlib and passes every CRC: only looking at each row finds it.
    @Test(arguments: [0, 17, 29])
    func badFilterByte(row: Int) throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30) { $0 == row ? 5 : 1 }))
        let result = agreed(url, .png)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message.contains("filter"), "\(result.message)")
        #expect(result.report.decoded_in_full == 1, "libpng words the damage")
    }

    /// The cheap path keeps its buffers from one image to the next: what an image held must never be read as the
    /// next one's data. Clean and damaged images of one size, alternately, each judged on its own bytes.
    @Test func keptBuffersCarryNothingFromOneImageToTheNext() throws {
        let clean = try write(png(width: 400, height: 300, data: rows(width: 400, height: 300)), "clean.png")
        let badLastFilter = try write(png(width: 400, height: 300, data: rows(width: 400, height: 300) { $0 == 299 ? 5 : 1 }), "filter.png")
        let shortData = try write(png(width: 400, height: 300, data: rows(width: 400, height: 299)), "short.png")
        for _ in 0..<3 {
            #expect(agreed(clean, .png).status == CNSE_IMAGE_OK)
            #expect(agreed(badLastFilter, .png).status == CNSE_IMAGE_CORRUPT)
            #expect(agreed(clean, .png).status == CNSE_IMAGE_OK)
            #expect(agreed(shortData, .png).status == CNSE_IMAGE_CORRUPT)
        }
    }

    @Test(arguments: [-1, 1])
    func imageDataOfTheWrongLength(rowsOff: Int) throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30 + rowsOff)))
        let result = agreed(url, .png)
        #expect(rowsOff < 0 ? result.status == CNSE_IMAGE_CORRUPT : result.report.warnings > 0 || result.status != CNSE_IMAGE_OK)
    }

    @Test func wrongAdler32() throws {
        let data = rows(width: 40, height: 30)
        let url = try write(png(width: 40, height: 30, data: data, adler: Self.adler32(data) ^ 1))
        let result = agreed(url, .png)
        #expect(result.status != CNSE_IMAGE_OK || result.report.warnings > 0)
    }

    /// A 16 KiB window: ISA-L would accept distances zlib refuses, so the cheap path leaves it to libpng.
    @Test func smallWindowHeader() throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30), header: [0x68, 0x05]))
        #expect(agreed(url, .png).status == CNSE_IMAGE_OK)
    }

    @Test func presetDictionaryHeader() throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30), header: [0x78, 0x20]))
        #expect(agreed(url, .png).status != CNSE_IMAGE_OK)
    }

    /// Bytes after the zlib stream's end (its Adler-32), in the last IDAT chunk or in one of their own. With
    /// Huffman-coded data the inflater reads ahead into its bit buffer, so when it reports the end it may already
    /// hold one or two of those bytes, and they still count. libpng reports bytes in the stream's last chunk and
    /// ignores a whole IDAT chunk after it; either way both paths agree.
    @Test(arguments: [(1, false), (2, false), (3, false), (9, false), (1, true), (5, true)])
    func bytesAfterTheStream(count: Int, ownChunk: Bool) throws {
        let data = rows(width: 40, height: 30)
        let clean = png(width: 40, height: 30, data: data, chunkSize: 1 << 20, huffman: true)
        let streamBytes = try #require(PNGBytes.chunks(in: clean).first { $0.type == "IDAT" }).length
        #expect(agreed(try write(clean), .png).status == CNSE_IMAGE_OK)
        let bytes = png(width: 40, height: 30, data: data, chunkSize: ownChunk ? streamBytes : 1 << 20, huffman: true,
                        afterStream: (0..<count).map { UInt8(truncatingIfNeeded: 0x5A &+ $0) })
        #expect(PNGBytes.chunks(in: bytes).filter { $0.type == "IDAT" }.count == (ownChunk ? 2 : 1))
        let result = agreed(try write(bytes), .png)
        if !ownChunk { #expect(result.status != CNSE_IMAGE_OK || result.report.warnings > 0, "\(result.message)") }
    }

    @Test(arguments: [1, 7, 4096])
    func imageDataInManyChunks(chunkSize: Int) throws {
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30), chunkSize: chunkSize))
        #expect(agreed(url, .png).status == CNSE_IMAGE_OK)
    }

    @Test func crcErrorInALaterIDAT() throws {
        var bytes = png(width: 40, height: 30, data: rows(width: 40, height: 30), chunkSize: 500)
        let idat = try #require(PNGBytes.chunks(in: bytes).filter { $0.type == "IDAT" }.dropFirst(2).first)
        bytes[idat.end - 1] ^= 0x40
        let result = agreed(try write(bytes), .png)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.message.contains("CRC"), "\(result.message)")
    }

    @Test(arguments: [0.3, 0.7, 0.99])
    func truncatedInsideTheImageData(fraction: Double) throws {
        let bytes = png(width: 40, height: 30, data: rows(width: 40, height: 30), chunkSize: 700)
        let url = try write(Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
        #expect(agreed(url, .png).status == CNSE_IMAGE_CORRUPT)
    }

    @Test func idatAfterAnotherChunk() throws {
        var bytes = png(width: 40, height: 30, data: rows(width: 40, height: 30), chunkSize: 2000)
        let second = try #require(PNGBytes.chunks(in: bytes).filter { $0.type == "IDAT" }.dropFirst().first)
        bytes.insert(contentsOf: PNGBytes.chunk("tEXt", Array("Comment\u{0}between".utf8)), at: second.start)
        agreed(try write(bytes), .png)
    }

    @Test func ancillaryChunkAfterTheData() throws {
        let after = PNGBytes.chunk("tIME", [0x07, 0xE8, 1, 2, 3, 4, 5])
        let url = try write(png(width: 40, height: 30, data: rows(width: 40, height: 30), afterData: after))
        #expect(agreed(url, .png).status == CNSE_IMAGE_OK)
    }

    @Test func iendWithData() throws {
        var bytes = png(width: 40, height: 30, data: rows(width: 40, height: 30))
        bytes.removeLast(12)
        bytes += PNGBytes.chunk("IEND", [1, 2, 3])
        agreed(try write(bytes), .png)
    }

    /// Adam7: seven reduced images, each row with its own filter byte; a bad one in the last pass.
    @Test(arguments: [false, true])
    func interlaced(badLastFilter: Bool) throws {
        // 8-bit RGB, 10 x 9: the passes' widths and heights (pass 1: 2 x 2 ... pass 7: 10 x 4).
        let passes: [(Int, Int)] = [(2, 2), (1, 2), (3, 1), (2, 3), (5, 2), (5, 5), (10, 4)]
        var data: [UInt8] = []
        for (index, (width, height)) in passes.enumerated() {
            for y in 0..<height {
                let filter: UInt8 = badLastFilter && index == 6 && y == height - 1 ? 9 : UInt8(y % 5)
                data += [filter] + (0..<(width * 3)).map { UInt8(truncatingIfNeeded: $0 + y) }
            }
        }
        let result = agreed(try write(png(width: 10, height: 9, interlaced: true, data: data)), .png)
        #expect(result.status == (badLastFilter ? CNSE_IMAGE_CORRUPT : CNSE_IMAGE_OK), "\(result.message)")
    }

    /// Palette images take the full decode (libpng can check indices past the palette, which only unfiltered
    /// rows show): an index past a two-colour palette is judged as before.
    @Test func paletteImagesTakeTheFullDecode() throws {
        let row: [UInt8] = [0, 0, 1, 2, 3]
        let data = Array([[UInt8]](repeating: row, count: 4).joined())
        var bytes = png(width: 4, height: 4, colorType: 3, data: data)
        let ihdr = try #require(PNGBytes.chunks(in: bytes).first { $0.type == "IHDR" })
        bytes.insert(contentsOf: PNGBytes.chunk("PLTE", [255, 0, 0, 0, 255, 0]), at: ihdr.end)
        agreed(try write(bytes), .png)
    }

    @Test(arguments: [(UInt8(16), UInt8(6)), (1, 0), (4, 0), (16, 4), (8, 4)])
    func otherBitDepths(depth: UInt8, colorType: UInt8) throws {
        let channels: [UInt8: Int] = [0: 1, 2: 3, 4: 2, 6: 4]
        let rowBytes = (13 * Int(depth) * (channels[colorType] ?? 1) + 7) / 8
        var data: [UInt8] = []
        for y in 0..<11 {
            data.append(UInt8(y % 5))
            for x in 0..<rowBytes { data.append(UInt8(truncatingIfNeeded: x * 3 + y)) }
        }
        let url = try write(png(width: 13, height: 11, bitDepth: depth, colorType: colorType, data: data))
        #expect(agreed(url, .png).status == CNSE_IMAGE_OK)
    }

    /// The memory limit still holds: the cheap path streams a 2 MB image through its fixed working memory (about
    /// 400 KB) under a 1 MB limit, and under 256 KB, less than that working memory, leaves it to libpng, row by row.
    @Test(arguments: [1_048_576, 262_144])
    func dataLargerThanTheMemoryLimitStillPasses(maxMemory: UInt64) throws {
        let url = directory.file("large.png")
        try #require(cimagefixtures_write_png(url.path, 1000, 700, 0, 3) == 0)
        var limits = ImageDecodeLimits()
        limits.maxMemory = maxMemory
        #expect(agreed(url, .png, limits: limits).status == CNSE_IMAGE_OK)
    }

    // MARK: Every byte flipped, real encoders' files

    @Test(arguments: [false, true])
    func everyByteFlipInAPNGAgrees(interlaced: Bool) throws {
        let url = directory.file("small.png")
        try #require(cimagefixtures_write_png(url.path, 9, 7, interlaced ? 1 : 0, 5) == 0)
        try eachByteFlipped(in: url.readBytes(), into: directory.file("damaged.png")) { damaged in
            agreed(damaged, .png)
        }
    }

    /// Writes `original` to `damaged` with each of its bytes changed in turn, calling `check` after each.
    private func eachByteFlipped(in original: [UInt8], into damaged: URL, _ check: (URL) throws -> Void) throws {
        for offset in original.indices {
            var bytes = original
            bytes[offset] ^= UInt8(truncatingIfNeeded: offset * 37 + 1) | 1
            try damaged.write(bytes: bytes)
            try check(damaged)
        }
    }

    /// Damage in a JPEG's entropy-coded data or markers: the 1/8-scale decode reads every code the full one does.
    @Test(arguments: [false, true])
    func everyByteFlipInAJPEGAgrees(progressive: Bool) throws {
        let url = directory.file("small.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 48, 32, 80, progressive ? 1 : 0, 5) == 0)
        var warned = 0
        try eachByteFlipped(in: url.readBytes(), into: directory.file("damaged.jpg")) { damaged in
            if agreed(damaged, .jpeg).report.warnings > 0 { warned += 1 }
        }
        // The flips reach the scan data: some must be found as corrupt data.
        #expect(warned > 0)
    }

    @Test(arguments: [0.2, 0.5, 0.9])
    func truncatedJPEG(fraction: Double) throws {
        let url = directory.file("cut.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 300, 200, 85, 0, 9) == 0)
        let bytes = try url.readBytes()
        try url.write(bytes: Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
        let result = agreed(url, .jpeg)
        #expect(result.report.warnings > 0 || result.status != CNSE_IMAGE_OK)
    }

    /// The JPEG memory limit is judged at full scale, as before: the same file is refused by both paths.
    @Test func jpegMemoryLimitIsJudgedAtFullScale() throws {
        let url = directory.file("progressive.jpg")
        try #require(cimagefixtures_write_jpeg(url.path, 1200, 900, 80, 1, 2) == 0)
        var limits = ImageDecodeLimits()
        limits.maxMemory = 2 * 1_048_576
        #expect(agreed(url, .jpeg, limits: limits).status == CNSE_IMAGE_OVER_MEMORY_LIMIT)
    }

    // MARK: GIF image data, built code by code

    /// One frame's LZW codes packed at the widths giflib's decoder reads them at (DGifDecompressInput: the width
    /// grows as codes are read, whatever they are, and a clear code resets it).
    private struct LZWCodes {
        let codeSize: Int
        private(set) var bytes: [UInt8] = []
        private var bits: UInt64 = 0
        private var count = 0
        private var runningCode = 0
        private var width = 0
        private var widthLimit = 0

        init(codeSize: Int) {
            self.codeSize = codeSize
            reset()
        }

        var clear: Int { 1 << codeSize }
        var end: Int { clear + 1 }

        private mutating func reset() {
            runningCode = clear + 2
            width = codeSize + 1
            widthLimit = 1 << width
        }

        mutating func put(_ code: Int) {
            bits |= UInt64(code & ((1 << width) - 1)) << count
            count += width
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                count -= 8
            }
            if runningCode < 4097 {
                runningCode += 1
                if runningCode > widthLimit && width < 12 {
                    widthLimit <<= 1
                    width += 1
                }
            }
            if code == clear { reset() }
        }

        /// The packed bytes, the last one padded with zero bits.
        var finished: [UInt8] { count > 0 ? bytes + [UInt8(truncatingIfNeeded: bits)] : bytes }
    }

    /// Codes a well-formed stream could hold for `pixels` pixels, drawn at random: literals, entries of the
    /// table as the decoder builds it (the one being added, "KwKwK", included), and a clear code now and then
    /// (`clearEvery` codes; 0 for never, so the table fills and stays full). Returns the codes.
    private static func wellFormedCodes(codeSize: Int, pixels: Int, clearEvery: Int, seed: UInt64) -> [Int] {
        var random = SeededBytes(seed: seed)
        let clear = 1 << codeSize
        var lengths = [Int](repeating: 1, count: 4096)
        var nextEntry = clear + 2
        var lastLength = 0
        var produced = 0
        var codes: [Int] = []
        while produced < pixels {
            if clearEvery > 0 && codes.count % clearEvery == clearEvery - 1 {
                codes.append(clear)
                nextEntry = clear + 2
                lastLength = 0
                continue
            }
            var code = Int(random.next() % UInt64(clear))
            let roll = random.next() % 8
            if lastLength > 0 && roll == 0 && nextEntry <= 4095 {
                code = nextEntry
            } else if roll < 5 && nextEntry > clear + 2 {
                code = clear + 2 + Int(random.next() % UInt64(nextEntry - clear - 2))
            }
            let length = code < clear ? 1 : code == nextEntry ? lastLength + 1 : lengths[code]
            if lastLength > 0 && nextEntry <= 4095 {
                lengths[nextEntry] = lastLength + 1
                nextEntry += 1
            }
            lastLength = length
            produced += length
            codes.append(code)
        }
        return codes
    }

    /// A GIF89a of one or more frames of `width` x `height`, each frame's data (`frames`, LZW bytes) cut into
    /// sub-blocks of `blockSize` bytes, then `afterData` and the empty block (unless `terminated` is false).
    private func gif(width: Int, height: Int, codeSize: Int, frames: [[UInt8]], blockSize: Int = 255,
                     afterData: [UInt8] = [], terminated: Bool = true, trailer: Bool = true) -> [UInt8] {
        func word(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let tableBits = max(codeSize, 1)
        var file = Array("GIF89a".utf8) + word(width) + word(height) + [0x80 | UInt8(tableBits - 1), 0, 0]
        file += (0..<(3 << tableBits)).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        for data in frames {
            file += [0x2C] + word(0) + word(0) + word(width) + word(height) + [0, UInt8(codeSize)]
            var start = 0
            while start < data.count {
                let block = data[start..<min(data.count, start + blockSize)]
                file += [UInt8(block.count)] + block
                start += blockSize
            }
            file += afterData
            if terminated { file += [0] }
        }
        return trailer ? file + [0x3B] : file
    }

    private func lzw(_ codes: [Int], codeSize: Int) -> [UInt8] {
        var packer = LZWCodes(codeSize: codeSize)
        for code in codes { packer.put(code) }
        return packer.finished
    }

    /// Every LZW code size giflib reads (0 to 8), with clear codes, and with the table left full (codes after
    /// the 4,096th are read at 12 bits and add nothing): the cheap path vouches, as giflib does. (With a giflib other
    /// than 5.2.1, whose decoder the cheap path follows, it hands every frame over and this test says so.)
    @Test(arguments: [(0, 97), (1, 0), (2, 700), (4, 0), (7, 3000), (8, 0), (8, 40)])
    func wellFormedGIFPasses(codeSize: Int, clearEvery: Int) throws {
        let codes = Self.wellFormedCodes(codeSize: codeSize, pixels: 300 * 200, clearEvery: clearEvery, seed: UInt64(codeSize * 31 + clearEvery))
        let url = try write(gif(width: 300, height: 200, codeSize: codeSize, frames: [lzw(codes, codeSize: codeSize)]), "built.gif")
        let result = agreed(url, .gif)
        #expect(result.status == CNSE_IMAGE_OK, "\(result.message)")
        #expect(result.report.frames == 1)
        #expect(result.report.decoded_in_full == 0, "the cheap path vouches for every well-formed stream")
    }

    /// Codes after the last pixel (the end code among them) and extra sub-blocks are skipped by giflib.
    @Test func dataAfterTheLastPixel() throws {
        var codes = Self.wellFormedCodes(codeSize: 8, pixels: 64 * 64, clearEvery: 0, seed: 3)
        codes += [5, 6, 257, 1 << 8, 4000]
        let url = try write(gif(width: 64, height: 64, codeSize: 8, frames: [lzw(codes, codeSize: 8)], afterData: [3, 1, 2, 3, 1, 9]), "after.gif")
        let result = agreed(url, .gif)
        #expect(result.status == CNSE_IMAGE_OK)
        #expect(result.report.decoded_in_full == 0)
    }

    /// The end code among literals, which read alike whatever the table holds: only stopping at the end code agrees.
    @Test func endCodeAmongLiterals() throws {
        let codes = Array(repeating: 7, count: 50) + [257] + Array(repeating: 9, count: 50)
        let url = try write(gif(width: 10, height: 10, codeSize: 8, frames: [lzw(codes, codeSize: 8)]), "end.gif")
        let result = agreed(url, .gif)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.report.decoded_in_full == 1)
    }

    /// Damage inside the LZW data, each at the start, the middle or near the end of a frame: the end code before the
    /// last pixel, a code past the table, a code past the table or the entry being added (which needs a previous
    /// code) as the first code after a clear code.
    @Test(arguments: ["end", "past", "afterClear", "addedAfterClear"], [0.0, 0.5, 0.97])
    func damagedCodes(kind: String, at fraction: Double) throws {
        var codes = Self.wellFormedCodes(codeSize: 8, pixels: 200 * 150, clearEvery: 500, seed: 11)
        let index = Int(Double(codes.count - 1) * fraction)
        switch kind {
        case "end": codes[index] = 257
        case "past": codes[index] = 4095
        case "afterClear": codes.insert(contentsOf: [256, 300], at: index)
        default: codes.insert(contentsOf: [256, 258], at: index)
        }
        let url = try write(gif(width: 200, height: 150, codeSize: 8, frames: [lzw(codes, codeSize: 8)]), "damaged.gif")
        let result = agreed(url, .gif)
        if kind != "past" {
            #expect(result.status == CNSE_IMAGE_CORRUPT, "\(result.message)")
            #expect(result.report.decoded_in_full == 1)
        }
    }

    /// Random codes, good and bad alike: whatever giflib makes of them (garbage pixels, a defect, the end too
    /// soon), the cheap path says the same.
    @Test func randomCodesAgree() throws {
        var random = SeededBytes(seed: 2026)
        let url = directory.file("random.gif")
        var outcomes: Set<UInt32> = []
        for round in 0..<300 {
            let codeSize = Int(random.next() % 9)
            let codes = (0..<Int(random.next() % 400)).map { _ in Int(random.next() % UInt64(min(4096, (1 << codeSize) + 40))) }
            try url.write(bytes: gif(width: 16, height: 16 + round % 7, codeSize: codeSize, frames: [lzw(codes, codeSize: codeSize)]))
            outcomes.insert(agreed(url, .gif).status.rawValue)
        }
        // Both verdicts are reached: some random streams make a picture, some are refused.
        #expect(outcomes.contains(CNSE_IMAGE_OK.rawValue) && outcomes.contains(CNSE_IMAGE_CORRUPT.rawValue))
    }

    /// An empty sub-block before the last pixel, a missing end of the data, the file cut anywhere in the data.
    @Test func blocksAndTruncation() throws {
        let codes = Self.wellFormedCodes(codeSize: 4, pixels: 40 * 30, clearEvery: 0, seed: 5)
        let data = lzw(codes, codeSize: 4)
        var emptyBlock = gif(width: 40, height: 30, codeSize: 4, frames: [data], blockSize: 10)
        // After the header, the 16-colour table, the image descriptor, the code size and the first 10-byte block.
        emptyBlock.insert(0, at: 13 + 48 + 10 + 1 + 11)
        #expect(agreed(try write(emptyBlock, "empty-block.gif"), .gif).status == CNSE_IMAGE_CORRUPT)
        #expect(agreed(try write(gif(width: 40, height: 30, codeSize: 4, frames: [data], terminated: false, trailer: false), "open.gif"), .gif).status == CNSE_IMAGE_CORRUPT)
        let whole = gif(width: 40, height: 30, codeSize: 4, frames: [data], blockSize: 7)
        for cut in stride(from: 13 + 48 + 10, to: whole.count, by: 3) {
            #expect(agreed(try write(Array(whole.prefix(cut)), "cut.gif"), .gif).status == CNSE_IMAGE_CORRUPT)
        }
    }

    /// The third frame is damaged: the cheap path vouched for the first two, then the full decode reads the file
    /// again from its start, and the report (frames counted, pixel work) is the full decode's.
    @Test func damageInALaterFrame() throws {
        let good = lzw(Self.wellFormedCodes(codeSize: 8, pixels: 50 * 40, clearEvery: 0, seed: 8), codeSize: 8)
        var bad = Self.wellFormedCodes(codeSize: 8, pixels: 50 * 40, clearEvery: 0, seed: 9)
        bad[bad.count / 2] = 257
        let url = try write(gif(width: 50, height: 40, codeSize: 8, frames: [good, good, lzw(bad, codeSize: 8), good]), "frames.gif")
        let result = agreed(url, .gif)
        #expect(result.status == CNSE_IMAGE_CORRUPT)
        #expect(result.report.frames == 3)
        #expect(result.report.decoded_in_full == 1)
    }

    /// giflib's own encoder's files, every byte flipped in turn, and every length cut.
    @Test func everyByteFlipInAGIFAgrees() throws {
        let url = directory.file("small.gif")
        try #require(cimagefixtures_write_gif(url.path, 21, 13, 2, 5) == 0)
        let original = try url.readBytes()
        var refused = 0
        try eachByteFlipped(in: original, into: directory.file("damaged.gif")) { damaged in
            if agreed(damaged, .gif).status != CNSE_IMAGE_OK { refused += 1 }
        }
        let cut = directory.file("cut.gif")
        for length in original.indices {
            try cut.write(bytes: Array(original.prefix(length)))
            agreed(cut, .gif)
        }
        #expect(refused > 0)
    }
}

