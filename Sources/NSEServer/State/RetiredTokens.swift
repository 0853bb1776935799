/// Tokens of one kind (APNs tokens, FCM registration tokens or Firebase Installation IDs) that were a device's until a
/// rotation or a reinstall replaced them, and what each answers: the device it was, and for an APNs token when its app
/// was uninstalled (APNs's 410 `timestamp`). At most `limit` are kept: past it the oldest is forgotten, and from then
/// on answers as a token no device ever had (APNs 400 BadDeviceToken, FCM 400 INVALID_ARGUMENT), so memory stays
/// bounded however many reinstalls and rotations a client asks for.
struct RetiredTokens: Sendable {
    /// What a retired token answers.
    struct Retirement: Sendable, Equatable {
        /// The key of the device it was (`ServeState.key(of:)`).
        var key: String
        /// When the app it belonged to was uninstalled (milliseconds since 1970): APNs tokens a reinstall replaced.
        var uninstalledAt: Int64?
    }

    /// One retired token as a checkpoint keeps it; a checkpoint lists them oldest first.
    struct Entry: Codable, Sendable, Equatable {
        var token: String
        var key: String
        var uninstalledAt: Int64?
    }

    /// The most tokens of each kind kept, unless `NSEServer.Configuration.retiredTokenLimit` says otherwise.
    static let defaultLimit = 100_000

    let limit: Int
    private var retired: [String: Retirement] = [:]
    /// The tokens kept, oldest first, from `head` on: the slots before it were forgotten (dropped now and then, so
    /// forgetting one costs no shift of the rest).
    private var order: [String] = []
    private var head = 0

    init(limit: Int = Self.defaultLimit, entries: [Entry] = []) {
        self.limit = max(limit, 0)
        for entry in entries { insert(entry.token, Retirement(key: entry.key, uninstalledAt: entry.uninstalledAt)) }
    }

    subscript(token: String) -> Retirement? {
        retired[token]
    }

    var isEmpty: Bool { retired.isEmpty }
    var count: Int { retired.count }

    /// Keeps `token` as the newest, forgetting the oldest past the limit. A token kept already keeps its place and
    /// takes the new answer: a journal line read again at a restart (after a checkpoint that had its change) moves
    /// nothing.
    mutating func insert(_ token: String, _ retirement: Retirement) {
        guard retired.updateValue(retirement, forKey: token) == nil else { return }
        order.append(token)
        while retired.count > limit, head < order.count {
            retired[order[head]] = nil
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// The tokens kept, oldest first, as a checkpoint records them.
    var entries: [Entry] {
        order[head...].compactMap { token in retired[token].map { Entry(token: token, key: $0.key, uninstalledAt: $0.uninstalledAt) } }
    }
}
