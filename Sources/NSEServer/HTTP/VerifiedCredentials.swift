import Synchronization

/// Credentials whose costly check passed (a provider token's ES256 signature, an access token's SHA-256 proof), with
/// what the check found that later requests still need (a provider token's `iat`): a sender reuses one credential for
/// up to an hour, so its check runs once, not at every request. At most `capacity`, emptied when full: a sender that
/// makes a new credential for every request pays the check each time, as without it.
final class VerifiedCredentials<Found: Sendable>: Sendable {
    static var capacity: Int { 1024 }
    private let verified = Mutex<[String: Found]>([:])

    /// What the check found for `credential`; nil when it has not passed (or was forgotten).
    func found(_ credential: String) -> Found? {
        verified.withLock { $0[credential] }
    }

    func insert(_ credential: String, _ found: Found) {
        verified.withLock { verified in
            if verified.count >= Self.capacity { verified.removeAll(keepingCapacity: true) }
            verified[credential] = found
        }
    }
}
