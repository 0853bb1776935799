@testable import NSEServer
import Testing

/// The tokens rotations and reinstalls replaced, kept up to a limit, the oldest forgotten first (no socket, no clock).
struct RetiredTokensTests {
    @Test func theOldestIsForgottenFirstAndAReadAgainLineMovesNothing() {
        var retired = RetiredTokens(limit: 3)
        for token in ["d", "a", "c"] { retired.insert(token, .init(key: "key-\(token)")) }
        // Read again (a journal line after a checkpoint that had its change): its place stays, its answer is the new one.
        retired.insert("d", .init(key: "key-d", uninstalledAt: 5))
        #expect(retired["d"] == .init(key: "key-d", uninstalledAt: 5))
        #expect(retired.entries.map(\.token) == ["d", "a", "c"])
        retired.insert("b", .init(key: "key-b"))
        #expect(retired["d"] == nil)
        #expect(retired.entries.map(\.token) == ["a", "c", "b"])
        retired.insert("e", .init(key: "key-e"))
        #expect(retired["a"] == nil)
        #expect(retired.entries.map(\.token) == ["c", "b", "e"])
        // A forgotten token replaced again is the newest.
        retired.insert("a", .init(key: "key-a2"))
        #expect(retired.entries.map(\.token) == ["b", "e", "a"])
        #expect(retired["a"]?.key == "key-a2")
    }

    /// What a checkpoint keeps gives back the same tokens in the same order, so the next one forgets the same token;
    /// a smaller limit keeps the newest.
    @Test func entriesGiveBackTheSameOrder() {
        var retired = RetiredTokens(limit: 1000)
        for number in 0..<5000 { retired.insert("token-\(number)", .init(key: "device", uninstalledAt: Int64(number))) }
        #expect(retired.count == 1000)
        let entries = retired.entries
        #expect(entries.map(\.token) == (4000..<5000).map { "token-\($0)" })
        var restored = RetiredTokens(limit: 1000, entries: entries)
        #expect(restored.entries == entries)
        restored.insert("token-5000", .init(key: "device"))
        #expect(restored["token-4000"] == nil && restored["token-4001"] != nil)
        #expect(RetiredTokens(limit: 10, entries: entries).entries == Array(entries.suffix(10)))
        #expect(RetiredTokens(limit: 0, entries: entries).isEmpty)
    }
}
