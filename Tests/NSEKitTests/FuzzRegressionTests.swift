// Every input the C fuzzers (Fuzz/run-c.sh) ever flagged is kept in Fuzz/regressions/<target>/ and replayed
// here through the same checker, with the fuzzers' limits, so a fixed crash stays fixed in every `swift test`.

import CNSE
import Foundation
@testable import NSEPush
@testable import NSEMedia
@testable import NSEReports
import Testing

struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/regressions")

    /// Fuzz/c/fuzz_check.h's limits.
    static let limits: ImageDecodeLimits = {
        var limits = ImageDecodeLimits()
        limits.maxPixels = 65_536
        limits.maxMemory = 4 * 1_048_576
        limits.maxPixelWork = 1_000_000
        limits.maxFrames = 1_000
        limits.maxScans = 500
        return limits
    }()

    /// (format, file name) of every kept input; the folder's .keep placeholder is not an input.
    static let inputs: [(ImageFormat, String)] = ImageFormat.allCases.flatMap { format in
        let folder = root.appendingPathComponent("\(format.rawValue)_check")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (format, $0) }
    }

    @Test func theRegressionFoldersExist() {
        for format in ImageFormat.allCases {
            let folder = Self.root.appendingPathComponent("\(format.rawValue)_check")
            #expect(FileManager.default.fileExists(atPath: folder.path), "missing \(folder.path)")
        }
    }

    /// Ends (the test process survives), with a status from the enum and a terminated message; a limit status
    /// carries a need above its limit.
    @Test(.timeLimit(.minutes(1)), arguments: inputs)
    func replaysWithoutCrashing(format: ImageFormat, name: String) {
        let url = Self.root.appendingPathComponent("\(format.rawValue)_check").appendingPathComponent(name)
        let result = format.check(url, limits: Self.limits)
        #expect(result.report.messageIsTerminated)
        #expect(result.status.rawValue <= CNSE_IMAGE_OVER_SCAN_LIMIT.rawValue)
        if result.status.rawValue >= CNSE_IMAGE_OVER_MEMORY_LIMIT.rawValue {
            #expect(result.report.needed > result.report.limit)
        }
    }
}
