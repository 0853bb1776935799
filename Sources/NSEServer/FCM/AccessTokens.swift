import Foundation
import NSEMedia

/// The OAuth 2 access tokens `POST /token` issues and the FCM endpoint accepts. A token carries its own proof
/// (a SHA-256 of the data folder's secret and the token's random part), so tokens outlive a clear of the state and
/// a restart, as Google's do while they are valid, without a list to keep.
struct AccessTokens: Sendable {
    static let secretFileName = "oauth-secret"
    /// Google's tokens last an hour; the auth libraries refresh them before that.
    static let lifetimeSeconds = 3600
    private static let prefix = "nse."

    private let secret: String
    /// Tokens whose proof held: a sender sends with one token for up to an hour, so its SHA-256 is checked once, not
    /// at every send. Bounded: emptied when full.
    private let proven = VerifiedCredentials<Bool>()

    /// Reads the data folder's secret, making one the first time.
    init(dataDirectory: URL) throws(ServeSetupError) {
        let url = dataDirectory.appendingPathComponent(Self.secretFileName)
        if let existing = try? String(contentsOf: url, encoding: .utf8), existing.utf8.count >= 32 {
            secret = existing
            return
        }
        let made = Self.randomHex(32)
        do {
            try AtomicFile.write(Data(made.utf8), to: url)
        } catch {
            throw ServeSetupError("Cannot write \(url.path): \(error.localizedDescription).")
        }
        secret = made
    }

    func issue() -> String {
        let random = Self.randomHex(16)
        return Self.prefix + random + "." + proof(random)
    }

    func isValid(_ token: String) -> Bool {
        guard token.hasPrefix(Self.prefix), token.utf8.count < 200 else { return false }
        if proven.found(token) != nil { return true }
        let parts = token.dropFirst(Self.prefix.count).split(separator: ".")
        guard parts.count == 2, proof(String(parts[0])) == parts[1] else { return false }
        proven.insert(token, true)
        return true
    }

    private func proof(_ random: String) -> String {
        let hash = SHA256()
        hash.update(Array((secret + ":" + random).utf8))
        return hash.finalizeHex()
    }

    private static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
