import Foundation
import NSEPipeline
import NSEPush
import NSEReports
import Testing

/// Hostile or mistaken inputs given to the real executable: each ends with a diagnostic in the user's words and
/// the right exit status, never a crash, a raw Foundation error, or a result mixed with another's.
struct HostileInputCommandTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Valid JSON numbers no `Int` holds: each once trapped (SIGILL) in the Double-to-Int conversion of `badge`.
    static let hugeBadges = ["1e19", "-1e19", "9223372036854775808", "123456789012345678901234567890", "1.5e300"]

    @Test(arguments: hugeBadges)
    func aBadgeNoIntegerHoldsIsALintErrorNotACrash(badge: String) async throws {
        let file = try ScratchFile("badge.json", #"{"aps": {"alert": {"title": "Hi"}, "badge": \#(badge)}}"#)
        for command in ["process", "lint"] {
            let run = try await runNSE([command, file.path, "--format", "json"])
            #expect(run.status == 1, "\(command): \(run.stderr)")
            #expect(run.stdout.contains("lint.aps.badge-type"), "\(command): \(run.stdout)")
        }
    }

    @Test func aBatchWithAHugeBadgeFinishesEveryPushAndWritesItsReports() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for (index, badge) in Self.hugeBadges.enumerated() {
            try Data(#"{"aps": {"alert": {"title": "Hi"}, "badge": \#(badge)}}"#.utf8).write(to: inputs.appendingPathComponent("b\(index).json"))
        }
        try Data(#"{"aps": {"alert": {"title": "Fine"}, "badge": 3}}"#.utf8).write(to: inputs.appendingPathComponent("ok.json"))
        let out = folder.appendingPathComponent("out")

        let run = try await runNSE(["batch", inputs.path, "--out", out.path, "--junit", folder.appendingPathComponent("junit.xml").path])

        #expect(run.status == 1, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        #expect((report?["results"] as? [Any])?.count == Self.hugeBadges.count + 1)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("junit.xml").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no hidden work folder left: \(leftovers)")
    }

    /// One size rule for every command: a file over `PushReader.maxInputBytes` is refused before it is read whole.
    @Test(arguments: ["process", "lint", "resolve", "route"])
    func anOversizedFileIsRefusedByEveryCommand(command: String) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.json")
        // Sparse: 64 MiB that takes no disk; a reader that read it whole would still pay for it in memory.
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()

        var arguments = [command, big.path, "--format", "json"]
        if command == "route" { arguments += ["--app-state", "background"] }
        let run = try await runNSE(arguments)

        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("payload.too-large"), "\(run.stdout)")
        #expect(run.stdout.contains("\(PushReader.maxInputBytes) bytes"))
    }

    @Test func aFolderGivenToProcessPointsAtBatch() async throws {
        let run = try await runNSE(["process", "samples/payloads", "--format", "json"])
        #expect(run.status == 2)
        #expect(run.stdout.contains("is a folder, not a push file. `nse batch samples/payloads`"), "\(run.stdout)")
    }

    @Test func aMissingFileIsNamedInPlainWords() async throws {
        let run = try await runNSE(["lint", "no/such/file.json", "--format", "text"])
        #expect(run.status == 2)
        #expect(run.stdout.contains("Cannot read no/such/file.json: no such file."), "\(run.stdout)")
        #expect(!run.stdout.contains("doesn’t exist"), "no raw Cocoa error")
    }

    @Test func anOutputFolderThatIsAFileIsAUsageError() async throws {
        let file = try ScratchFile("taken", "not a folder")
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--out", file.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("cannot write results to \(file.path): it is a file, not a folder"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test func anOutputFolderUnderAFileNamesTheFileForBothCommands() async throws {
        let file = try ScratchFile("taken", "not a folder")
        let process = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "--out", file.path + "/sub"])
        let batch = try await runNSE(["batch", "samples/payloads", "--out", file.path + "/sub"])
        for run in [process, batch] {
            #expect(run.status == 2)
            #expect(run.stderr.contains("\(file.path) is a file, not a folder"), "\(run.stderr)")
        }
    }

    /// `a/x.json` and `b/x.json` once both wrote `OUT/x/`: the last content.json won, the other's attachment stayed.
    @Test func inputsThatShareANameGetFoldersOfTheirOwn() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, sample) in [("a", "jpeg-ok.json"), ("b", "png-ok.json")] {
            let sub = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: ProcessCommandTests.root.appendingPathComponent("samples/payloads/\(sample)"), to: sub.appendingPathComponent("x.json"))
        }
        let out = folder.appendingPathComponent("out")
        // A previous run's result in the folder `a/x.json` will use: it must be replaced whole, not merged.
        try FileManager.default.createDirectory(at: out.appendingPathComponent("a/x.json"), withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: out.appendingPathComponent("a/x.json/attachment.gif"))

        let a = folder.appendingPathComponent("a/x.json").path, b = folder.appendingPathComponent("b/x.json").path
        let run = try await runNSE(["process", a, b, "--media", "samples/media", "--out", out.path, "--format", "json"])

        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let listing = try FileManager.default.subpathsOfDirectory(atPath: out.path).sorted()
        #expect(listing == ["a", "a/x.json", "a/x.json/attachment.jpg", "a/x.json/content.json", "b", "b/x.json", "b/x.json/attachment.png", "b/x.json/content.json"])
        let first = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: out.appendingPathComponent("a/x.json/content.json")))
        #expect(first.input == a)
    }

    @Test func aDashReadsThePushFromStandardInput() async throws {
        let push = #"{"aps": {"alert": {"title": "From a pipe"}}}"#
        let lint = try await runNSE(["lint", "-", "--format", "json"], standardInput: push)
        #expect(lint.status == 0, "\(lint.stdout)")
        let process = try await runNSE(["process", "-", "--format", "json"], standardInput: push)
        let result = try decodeJSON(ProcessResult.self, process.stdout)
        #expect(result.input == "-")
        #expect(result.content?.title == "From a pipe")
    }

    @Test func versionIsPrinted() async throws {
        let run = try await runNSE(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout == NSEVersion.current + "\n")
    }

    @Test func folderNamesNeverCollide() {
        #expect(ResultFolderNames.names(for: ["promo.json", "sale.apns"]) == ["promo.json", "sale.apns"])
        #expect(ResultFolderNames.names(for: ["c/a/x.json", "c/b/x.json", "y.json"]) == ["a/x.json", "b/x.json", "y.json"])
        #expect(ResultFolderNames.names(for: ["x.json", "x.apns"]) == ["x.json", "x.apns"])
        #expect(ResultFolderNames.names(for: ["a/x.json", "b/x.json", "a/x.apns"]) == ["a/x.json", "b/x.json", "x.apns"])
        #expect(ResultFolderNames.names(for: ["x.json", "x.json", "x-2.json"]) == ["x.json", "x-3.json", "x-2.json"])
        #expect(ResultFolderNames.unique(["x.json", "x.json/y.json"]) == ["x.json", "x-2.json/y.json"])
        #expect(ResultFolderNames.unique(["x.json/y.json", "x.json"]) == ["x.json/y.json", "x-2.json"])
        #expect(ResultFolderNames.unique(["in/x.json", "in/x.json", "README"]) == ["in/x.json", "in/x-2.json", "README"])
    }
}
