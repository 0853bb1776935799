import Foundation
import NSEPipeline
import Testing

/// Every input gets a result folder of its own under `--out`, in `process` and `batch` alike (one rule,
/// `ResultFolderNames`): inputs that share a name once collided (`nse batch a/x.json b/x.json` was refused, two
/// folders named `in` were refused) or were told apart only by a number (`x.json` and `x.apns` gave `x`, `x-2`).
struct ResultFolderCommandTests {
    /// a/x.json, b/x.json (two different samples) and a/x.apns, under a scratch folder.
    final class Inputs: Sendable {
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-folders-\(UUID().uuidString)")
            for (path, sample) in [("a/x.json", "jpeg-ok.json"), ("b/x.json", "png-ok.json"), ("a/x.apns", "gif-animated-ok.json")] {
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: ProcessCommandTests.root.appendingPathComponent("samples/payloads/\(sample)"), to: file)
            }
        }

        func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    /// The folders holding a content.json, relative to `out`, and the input each one's result names.
    private func results(in out: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: out.path) where path.hasSuffix("/content.json") {
            let result = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: out.appendingPathComponent(path)))
            found[String(path.dropLast("/content.json".count))] = result.input
        }
        return found
    }

    @Test(.timeLimit(.minutes(1)), arguments: ["process", "batch"])
    func threeInputsThatShareNamesGetThreeFolders(command: String) async throws {
        let inputs = try Inputs()
        let out = inputs.folder.appendingPathComponent("out")
        let files = [inputs.path("a/x.json"), inputs.path("b/x.json"), inputs.path("a/x.apns")]

        let run = try await runNSE([command] + files + ["--media", "samples/media", "--simulator-runs-extension", "--out", out.path, "--format", command == "batch" ? "text" : "json"])

        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try results(in: out) == ["a/x.json": files[0], "b/x.json": files[1], "x.apns": files[2]])
    }

    @Test(.timeLimit(.minutes(1)))
    func twoFoldersOfTheSameNameKeepTheirFilesApart() async throws {
        let inputs = try Inputs()
        for side in ["a", "b"] {
            let folder = inputs.folder.appendingPathComponent("\(side)/in")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: inputs.path("\(side)/x.json"), toPath: folder.appendingPathComponent("x.json").path)
        }
        let out = inputs.folder.appendingPathComponent("out")

        let run = try await runNSE(["batch", inputs.path("a/in"), inputs.path("b/in"), "--media", "samples/media", "--out", out.path])

        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try results(in: out) == ["a/in/x.json": inputs.path("a/in/x.json"), "b/in/x.json": inputs.path("b/in/x.json")])
    }
}
