import Foundation
import NSEFuzzTargets
import Testing

/// The Swift fuzz targets' inputs replayed through the entry points `make fuzz` runs: every input a fuzzer
/// found a crash, trap or hang with (Fuzz/regressions/<target>/, kept with its fix) and every seed. An input
/// that traps again stops the test process, which fails the run.
struct FuzzTargetRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    private static func files(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func regressionInputsRunCleanly(_ target: FuzzTarget) throws {
        let folder = Self.fuzz.appendingPathComponent("regressions/\(target.rawValue)")
        for input in try Self.files(in: folder) {
            target.run(try Data(contentsOf: input))
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func seedsRunCleanly(_ target: FuzzTarget) throws {
        let seeds = try Self.files(in: Self.fuzz.appendingPathComponent(target == .media ? "seeds/media" : "seeds/json"))
        #expect(seeds.count > 5)
        for seed in seeds {
            target.run(try Data(contentsOf: seed))
        }
    }
}
