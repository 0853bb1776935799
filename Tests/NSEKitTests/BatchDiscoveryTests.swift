import Foundation
import Testing
@testable import NSEKit

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
        // A link to a folder could loop; a link to a file is that file; a FIFO would block whoever reads it.
        try FileManager.default.createSymbolicLink(at: folder.file("loop"), withDestinationURL: folder.url)
        try FileManager.default.createSymbolicLink(at: folder.file("linked.json"), withDestinationURL: folder.file("notes.txt"))
        #expect(mkfifo(folder.file("fifo.json").path, 0o644) == 0)

        let inputs = try BatchInputDiscovery.discover([folder.url.path], excluding: [folder.file("out")])

        #expect(inputs.map(\.outputPath) == ["A.json", "a.apns", "a.json", "a/x.json", "b.json", "linked.json", "sub/c.JSON", "sub/deeper/d.json"])
        #expect(inputs.first?.file.path == folder.file("A.json").path)
        #expect(inputs.allSatisfy { $0.listingError == nil })
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

    @Test func twoInputsThatWouldShareAResultFolderAreAUsageError() throws {
        let one = try TemporaryFolder()
        let two = try TemporaryFolder()
        try PayloadTree(root: one.url).write("promo.json", "{}")
        try PayloadTree(root: two.url).write("promo.json", "{}")
        #expect(throws: BatchInputError.self) {
            try BatchInputDiscovery.discover([one.file("promo.json").path, two.file("promo.json").path])
        }
        #expect(throws: BatchInputError.self) {
            try BatchInputDiscovery.discover([one.file("missing").path])
        }
    }
}
