// Shared helpers for the image tests: a temporary directory, the three checkers behind one type,
// PNG chunk surgery with a CRC-32, and deterministic random bytes.

import CImageFixtures
import CNSE
import Foundation
@testable import NSEPush
@testable import NSEMedia
@testable import NSEReports
@testable import NSEBatch
import Testing

/// A fresh directory under the system's temporary directory, removed when the last reference goes away.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("nse-image-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// What one checker call returned.
struct ImageCheck {
    let status: cnse_image_status
    let report: cnse_image_report

    var message: String { report.messageText }
}

extension cnse_image_report {
    /// The NUL-terminated message as a String.
    var messageText: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    /// Whether the fixed-size message buffer holds a terminating NUL.
    var messageIsTerminated: Bool {
        withUnsafeBytes(of: message) { $0.contains(0) }
    }
}

/// The three formats, each with its checker and its fixture encoder.
enum ImageFormat: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case png, jpeg, gif

    /// The limits the tests use unless they test a limit: nse's own defaults.
    static let defaultMaxPixels: UInt64 = ImageDecodeLimits().maxPixels

    var testDescription: String { rawValue.uppercased() }

    func check(_ url: URL, maxPixels: UInt64 = ImageFormat.defaultMaxPixels) -> ImageCheck {
        var limits = ImageDecodeLimits()
        limits.maxPixels = maxPixels
        return check(url, limits: limits)
    }

    func check(_ url: URL, limits: ImageDecodeLimits) -> ImageCheck {
        var report = cnse_image_report()
        var cLimits = limits.cLimits
        let status: cnse_image_status
        switch self {
        case .png: status = cnse_png_check(url.path, &cLimits, &report)
        case .jpeg: status = cnse_jpeg_check(url.path, &cLimits, &report)
        case .gif: status = cnse_gif_check(url.path, &cLimits, &report)
        }
        return ImageCheck(status: status, report: report)
    }

    /// Writes a plain (non-interlaced, baseline, single-frame) image with the real encoder.
    func write(_ url: URL, width: UInt32, height: UInt32, seed: UInt32 = 1) throws {
        let result: Int32
        switch self {
        case .png: result = cimagefixtures_write_png(url.path, width, height, 0, seed)
        case .jpeg: result = cimagefixtures_write_jpeg(url.path, width, height, 90, 0, seed)
        case .gif: result = cimagefixtures_write_gif(url.path, width, height, 1, seed)
        }
        try #require(result == 0, "the \(rawValue) fixture encoder failed")
    }
}

/// Building and taking apart PNG files byte by byte, for damage no encoder would write.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A chunk's place in a file: `start` is the offset of its length field, `end` one past its CRC.
    struct Chunk {
        let type: String
        let start: Int
        let dataStart: Int
        let length: Int
        var end: Int { dataStart + length + 4 }
    }

    static func chunks(in bytes: [UInt8]) -> [Chunk] {
        var chunks: [Chunk] = []
        var offset = signature.count
        while offset + 12 <= bytes.count {
            let length = Int(bigEndian32(bytes, at: offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            chunks.append(Chunk(type: type, start: offset, dataStart: offset + 8, length: length))
            offset += 12 + length
        }
        return chunks
    }

    /// Length, type, data and CRC; `validCRC: false` stores the CRC with its bits inverted.
    static func chunk(_ type: String, _ data: [UInt8], validCRC: Bool = true) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        let crc = crc32(typeAndData)
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(validCRC ? crc : ~crc)
    }

    static func ihdr(width: UInt32, height: UInt32) -> [UInt8] {
        // 8-bit RGB, deflate, adaptive filtering, not interlaced.
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
    }

    /// A zlib stream of zero bytes: a valid IDAT payload that holds far too little image data.
    static let emptyZlibStream: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]

    /// CRC-32 as PNG (and zlib) define it: reflected polynomial 0xEDB88320, initial and final inversion.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// SplitMix64: deterministic bytes, so a failing random-input case can be replayed from its seed.
struct SeededBytes {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}

extension URL {
    func readBytes() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: self))
    }

    func write(bytes: [UInt8]) throws {
        try Data(bytes).write(to: self)
    }
}
