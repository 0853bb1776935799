import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing

/// Which files a batch takes, in which order, and where their results go.
struct BatchDiscoveryTests {
    @Test func walksRecursivelyInByteOrderAndSkipsWhatIsNoPush() throws {
        let folder = try TemporaryFolder()
        let tree = PayloadTree(root: folder.url)
        for path in ["b.json", "a.apns", "A.json", "a.json", "sub/c.JSON", "sub/deeper/d.json", "a/x.json"] {
            try tree.write(path, "{}")
        }
        try tree.write("notes.txt", "not a push")
        try tree.write(".hidden/e.json", "{}")
        try tree.write(".f.json", "{}")
        try tree.write("out/previous.json", "{}")
        try FileManager.default.createDirectory(at: folder.file("empty"), withIntermediateDirectories: true)
        // A link to a folder could loop; a link to a file is that file; a FIFO would block whoever reads it, so it
        // is reported unread.
        try FileManager.default.createSymbolicLink(at: folder.file("loop"), withDestinationURL: folder.url)
        try FileManager.default.createSymbolicLink(at: folder.file("linked.json"), withDestinationURL: folder.file("notes.txt"))
        #expect(mkfifo(folder.file("fifo.json").path, 0o644) == 0)

        let inputs = try BatchInputDiscovery.discover([folder.url.path], excluding: [folder.file("out")])

        #expect(inputs.map(\.outputPath) == ["A.json", "a.apns", "a.json", "a/x.json", "b.json", "fifo.json", "linked.json", "sub/c.JSON", "sub/deeper/d.json"])
        #expect(inputs.first?.file.path == folder.file("A.json").path)
        #expect(inputs.allSatisfy { $0.listingError == nil })
        #expect(inputs.filter { $0.unreadableReason != nil }.map(\.outputPath) == ["fifo.json"])
    }

    /// Foundation's listing drops a name that is not UTF-8; a broken link was passed over. Both are now results.
    @Test func filesThatCannotBeReadAreReportedNotSkipped() async throws {
        let folder = try TemporaryFolder()
        try PayloadTree(root: folder.url).write("ok.json", #"{"aps": {"alert": "Hi"}}"#)
        let rawName = Array(folder.url.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".json".utf8) + [0]
        let descriptor = rawName.withUnsafeBufferPointer { name in
            name.baseAddress!.withMemoryRebound(to: CChar.self, capacity: name.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        try FileManager.default.createSymbolicLink(at: folder.file("gone.json"), withDestinationURL: folder.file("missing.json"))

        let inputs = try BatchInputDiscovery.discover([folder.url.path])
        #expect(inputs.map(\.outputPath) == ["caf\\xE9.json", "gone.json", "ok.json"])

        let report = try await BatchRunner(pipeline: Pipeline(), jobs: 2, outDirectory: nil).run(inputs)
        let entries = report.entries.compactMap { $0 }
        #expect(entries.count == 3)
        #expect(entries.map { $0.errors.map(\.code) } == [[.inputUnreadable], [.inputUnreadable], []])
        #expect(entries.first?.errors.first?.message.contains("not valid UTF-8") == true)
        #expect(entries.dropFirst().first?.errors.first?.message.contains("symbolic link") == true)
    }

    @Test func severalFoldersKeepTheirNamesAndFilesTheirOwn() throws {
        let one = try TemporaryFolder()
        let two = try TemporaryFolder()
        try PayloadTree(root: one.url).write("fr/promo.json", "{}")
        try PayloadTree(root: two.url).write("promo.json", "{}")

        let inputs = try BatchInputDiscovery.discover([two.url.path, one.url.path, one.file("fr/promo.json").path])

        #expect(inputs.map(\.outputPath) == [
            "\(two.url.lastPathComponent)/promo.json", "\(one.url.lastPathComponent)/fr/promo.json",
        ], "the file named on its own was already found under its folder")
    }

    /// A file is identified by its path with every link resolved, whichever way it was reached: through a link to
    /// it, through a folder named again, through a link to a folder named as a root.
    @Test func aFileReachedSeveralWaysIsTakenOnce() throws {
        let folder = try TemporaryFolder()
        let tree = PayloadTree(root: folder.url.appendingPathComponent("pushes"))
        try tree.write("a.json", "{}")
        try tree.write("sub/b.json", "{}")
        try FileManager.default.createSymbolicLink(at: tree.root.appendingPathComponent("alias.json"), withDestinationURL: tree.root.appendingPathComponent("sub/b.json"))
        try FileManager.default.createSymbolicLink(at: folder.file("elsewhere"), withDestinationURL: tree.root)

        let inputs = try BatchInputDiscovery.discover([tree.root.path, tree.root.appendingPathComponent("sub").path, folder.file("elsewhere").path])

        // The link comes first in byte order, so it stands for the file it names.
        #expect(inputs.map(\.outputPath) == ["pushes/a.json", "pushes/alias.json"])
    }

    /// Once a usage error ("would both be saved as"): now each gets as much of its path as tells them apart.
    @Test func filesThatShareANameGetResultFoldersOfTheirOwn() throws {
        let one = try TemporaryFolder()
        let two = try TemporaryFolder()
        try PayloadTree(root: one.url).write("promo.json", "{}")
        try PayloadTree(root: two.url).write("promo.json", "{}")
        let inputs = try BatchInputDiscovery.discover([one.file("promo.json").path, two.file("promo.json").path])
        #expect(inputs.map(\.outputPath) == [one.url.lastPathComponent + "/promo.json", two.url.lastPathComponent + "/promo.json"])
        #expect(throws: BatchInputError.self) {
            try BatchInputDiscovery.discover([one.file("missing").path])
        }
    }

    @Test func aNamedFileAndAWalkedOneThatShareAFolderAreNumbered() throws {
        let folder = try TemporaryFolder()
        let tree = PayloadTree(root: folder.url.appendingPathComponent("pushes"))
        try tree.write("promo.json", "{}")
        let other = try TemporaryFolder()
        try PayloadTree(root: other.url).write("promo.json", "{}")
        let inputs = try BatchInputDiscovery.discover([tree.root.path, other.file("promo.json").path])
        #expect(inputs.map(\.outputPath) == ["promo.json", "promo-2.json"])
    }
}
