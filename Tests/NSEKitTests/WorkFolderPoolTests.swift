import Foundation
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEReports
import Testing

/// A batch's working folders are reused, so a push must find its folder as empty as a new one, except for the
/// attachment store's folders (emptied), and emptying must never reach outside it through a link.
struct WorkFolderPoolTests {
    private func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func contents(_ folder: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        return (walker?.allObjects as? [String] ?? []).sorted()
    }

    @Test func foldersHeldAtOnceAreDistinctAndAReturnedOneIsReusedEmptied() throws {
        let root = try TemporaryFolder()
        let pool = WorkFolderPool(root: root.url)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        #expect(first != second)

        let (store0, store1) = (ExtensionContext.attachmentStoreFolder(0), ExtensionContext.attachmentStoreFolder(1))
        try write("image", to: first.appendingPathComponent("download"))
        try write("made by the extension", to: first.appendingPathComponent("tmp/CFNetworkDownload_1.tmp"))
        try write("adopted", to: first.appendingPathComponent("\(store0)/attachment.jpg"))
        try write("second attachment", to: first.appendingPathComponent("\(store1)/image.png"))
        try write("not the store's", to: first.appendingPathComponent("\(ExtensionContext.attachmentStoreName)-x/file"))
        pool.giveBack(first)

        let reused = try #require(pool.take())
        #expect(reused == first, "the emptied folder is handed out before a new one is made")
        #expect(contents(reused) == [store0, store1], "only the store's folders stay, and empty")
        #expect(try #require(pool.take()) != second, "a folder still held is never handed out")
    }

    @Test func emptyingRemovesLinksWithoutFollowingThem() throws {
        let root = try TemporaryFolder()
        let outside = try TemporaryFolder()
        try write("keep me", to: outside.url.appendingPathComponent("precious.txt"))
        let pool = WorkFolderPool(root: root.url)
        let folder = try #require(pool.take())
        let store = folder.appendingPathComponent(ExtensionContext.attachmentStoreFolder(0))
        // A link in a store folder's place, and one inside a store folder: both point at a folder outside.
        try FileManager.default.createSymbolicLink(at: store, withDestinationURL: outside.url)
        pool.giveBack(folder)
        #expect(contents(outside.url) == ["precious.txt"])

        let again = try #require(pool.take())
        try FileManager.default.createDirectory(at: again.appendingPathComponent(ExtensionContext.attachmentStoreFolder(0)), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: again.appendingPathComponent("\(ExtensionContext.attachmentStoreFolder(0))/link"), withDestinationURL: outside.url)
        pool.giveBack(again)
        #expect(contents(outside.url) == ["precious.txt"])
        #expect(contents(try #require(pool.take())) == [ExtensionContext.attachmentStoreFolder(0)])
    }

    @Test func afterTheLastTakerFoldersGivenBackAreRemovedAndNotBefore() throws {
        let root = try TemporaryFolder()
        let pool = WorkFolderPool(root: root.url)
        pool.expectTakers(3)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        let store = ExtensionContext.attachmentStoreFolder(0)
        try write("adopted", to: first.appendingPathComponent("\(store)/attachment.jpg"))
        try write("left by the extension", to: first.appendingPathComponent("tmp/CFNetworkDownload_1.tmp"))
        pool.giveBack(first)
        #expect(contents(first) == [store], "kept, emptied, for the push still to come")

        let last = try #require(pool.take())
        #expect(last == first, "the last push reuses it")
        pool.giveBack(second)
        #expect(!FileManager.default.fileExists(atPath: second.path), "no push will take it: removed")
        pool.giveBack(last)
        #expect(contents(root.url) == [], "the last one too, its store and all")
    }

    @Test func theLastTakerLeavesNoOtherFolderWaiting() throws {
        let root = try TemporaryFolder()
        let pool = WorkFolderPool(root: root.url)
        pool.expectTakers(3)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        pool.giveBack(first)
        pool.giveBack(second)
        let last = try #require(pool.take())
        #expect(contents(root.url) == [last.lastPathComponent], "the folder the last push did not need is removed at once")
    }
}
