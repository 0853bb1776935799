import NSEPush
import Testing

/// A near-miss key (`mutable_content` for `mutable-content`) is found by comparing keys squashed to their letters,
/// lowercased. ASCII keys take a short path: it must squash every key exactly as the Unicode rule does.
struct MisplacedKeyTests {
    @Test(arguments: [
        "", "aps", "mutable-content", "Mutable_Content", "mutableContent", "content-available", "CONTENT AVAILABLE",
        "thread-id", "a1b2c3", "@#$%^&*()[]{}", "\u{7F}x", "gcm.n.e", "google.c.a.c_id", "Ünïcode-Key", "ǅemal", "ᾈb",
        "İstanbul", "straße", "東京-key", "mütable_cöntent", "ÀB", "x\u{301}y",
    ])
    func squashedMatchesTheUnicodeRule(_ key: String) {
        #expect(MisplacedKey.squashed(key) == key.lowercased().filter(\.isLetter))
    }
}
