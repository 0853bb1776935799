import Foundation
import NSEPush

/// One push the server accepted, and what its phone showed once the pipeline finished.
struct NotificationRecord: Sendable {
    var seq: Int
    /// The apns-id (APNs) or the message name (FCM) the sender was answered with.
    var id: String
    /// "apns" or "fcm".
    var service: String
    /// The key of the device it went to (`ServeState.key(of:)`).
    var device: String
    var receivedAt: String
    /// The request that carried it, as JSON: protocol, method, path, headers, body.
    var request: Data
    /// `{"phone": ..., "result": ...}` once delivered; nil while the pipeline runs (pending).
    var delivery: Data?
}

/// The server's devices and history. Every change that an answer depends on is journaled first.
actor ServeState {
    private(set) var devices: [DeviceEntry]
    private var records: [NotificationRecord] = []
    /// Devices whose app was uninstalled, by key: when (milliseconds since 1970), for APNs's 410 `timestamp`.
    private var uninstalled: [String: Int64] = [:]
    private var nextSeq = 1
    /// Bumped by a clear: deliveries of pushes accepted before it are dropped, not journaled.
    private var generation = 0
    private let journal: Journal
    /// Made once: making a formatter (ICU's) cost more than the rest of accepting a push.
    private let timestamps = ISO8601DateFormatter()
    /// Control API requests waiting for a device's pushes to settle, woken at every change.
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    let dataDirectory: URL
    let clock: EmulatorClock
    /// FCM registration tokens replaced by a rotation, and the key of the device they were: FCM answers them
    /// UNREGISTERED.
    private var retiredFCMTokens: [String: String] = [:]
    /// When each device was last seen active (by key); a device not in it has been since `activeSince`.
    private var lastActive: [String: Date] = [:]
    private var activeSince: Date
    /// How long an FCM token may stay inactive before FCM expires it; nil: never.
    let fcmTokenExpiry: TimeInterval?

    init(devices: [DeviceEntry], dataDirectory: URL, clock: EmulatorClock = EmulatorClock(base: { Date() }), fcmTokenExpiry: TimeInterval? = nil) throws(ServeSetupError) {
        self.devices = devices
        self.dataDirectory = dataDirectory
        self.clock = clock
        self.fcmTokenExpiry = fcmTokenExpiry
        activeSince = clock.now()
        journal = try Journal(directory: dataDirectory)
    }

    /// A device's stable key in the control API: its APNs token (lowercase), else its FCM token, as it was when
    /// the device was registered (a rotated FCM token does not move its history).
    static func key(of device: DeviceEntry) -> String {
        device.pinnedKey ?? device.apns.map { APNsToken.normalized($0.token) } ?? device.fcm?.token ?? device.name
    }

    func device(apnsToken: String) -> DeviceEntry? {
        let token = APNsToken.normalized(apnsToken)
        return devices.first { $0.apns.map { APNsToken.normalized($0.token) } == token }
    }

    func device(fcmToken: String) -> DeviceEntry? {
        devices.first { $0.fcm?.token == fcmToken }
    }

    /// The project's devices whose subscriptions `audience` accepts (a topic's or a condition's), skipping those
    /// FCM would not deliver to (uninstalled, or the token expired).
    func devices(project: String, audience: @Sendable (Set<String>) -> Bool) -> [DeviceEntry] {
        devices.filter { device in
            guard let fcm = device.fcm, fcm.project == project, audience(Set(fcm.topics)) else { return false }
            return !fcmTokenUnregistered(device)
        }
    }

    /// The FCM token was this device's until a rotation replaced it.
    func isRetired(fcmToken: String) -> Bool {
        retiredFCMTokens[fcmToken] != nil
    }

    /// FCM answers the device's token UNREGISTERED: the app was uninstalled, or the token was inactive longer than
    /// FCM keeps tokens.
    func fcmTokenUnregistered(_ device: DeviceEntry) -> Bool {
        uninstalled[Self.key(of: device)] != nil || isExpired(Self.key(of: device))
    }

    private func isExpired(_ key: String) -> Bool {
        guard let fcmTokenExpiry else { return false }
        return clock.now().timeIntervalSince(lastActive[key] ?? activeSince) > fcmTokenExpiry
    }

    /// When the device was last active (the inactivity FCM's token expiry counts from).
    func lastActiveAt(_ device: DeviceEntry) -> Date {
        lastActive[Self.key(of: device)] ?? activeSince
    }

    /// The device is active now, unless its FCM token already expired (FCM does not revive an expired token).
    private func touch(_ key: String) {
        if !isExpired(key) { lastActive[key] = clock.now() }
    }

    /// The device with this key, APNs token (any case) or FCM token.
    func device(key: String) -> DeviceEntry? {
        devices.first {
            Self.key(of: $0) == key || $0.apns.map { APNsToken.normalized($0.token) } == APNsToken.normalized(key) || $0.fcm?.token == key
        }
    }

    /// Registers a device that `--accept-any-token` made up for an unknown token; journaled, so a restart keeps it.
    func register(_ device: DeviceEntry) async throws(ServeSetupError) {
        if devices.contains(where: { Self.key(of: $0) == Self.key(of: device) }) { return }
        let encoded = (try? JSONEncoder().encode(device)) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: encoded)) ?? [:]
        try await journal.append(Self.encode(["type": "device", "device": object]))
        devices.append(device)
    }

    /// When the device's app was uninstalled (milliseconds since 1970), or nil while it is installed.
    func uninstalledAt(_ device: DeviceEntry) -> Int64? {
        uninstalled[Self.key(of: device)]
    }

    /// Uninstalls the device's app: from now on APNs answers 410 Unregistered and FCM 404 UNREGISTERED.
    func uninstall(_ device: DeviceEntry, at milliseconds: Int64) async throws(ServeSetupError) {
        let key = Self.key(of: device)
        guard uninstalled[key] == nil else { return }
        try await journal.append(Self.encode(["type": "uninstall", "device": key, "at": milliseconds]))
        uninstalled[key] = milliseconds
    }

    /// Records an accepted push (on disk before this returns) and gives its sequence number and generation.
    func accept(id: String, service: String, device: DeviceEntry, request requestData: Data) async throws(ServeSetupError) -> (seq: Int, generation: Int) {
        let seq = nextSeq
        nextSeq += 1
        let receivedAt = timestamps.string(from: Date())
        // Spliced from parts already encoded: a push's line costs no decoding and re-encoding of its request.
        var line = Data(#"{"type":"push","seq":\#(seq),"id":"#.utf8)
        line.append(Self.quoted(id))
        line.append(contentsOf: Array(#","service":"#.utf8))
        line.append(Self.quoted(service))
        line.append(contentsOf: Array(#","device":"#.utf8))
        line.append(Self.quoted(Self.key(of: device)))
        line.append(contentsOf: Array(#","receivedAt":"#.utf8))
        line.append(Self.quoted(receivedAt))
        line.append(contentsOf: Array(#","request":"#.utf8))
        line.append(requestData)
        line.append(contentsOf: Array("}".utf8))
        try await journal.append(line)
        // Concurrent accepts finish their journal writes in any order; the records stay in `seq` order (which
        // `index(of:)` bisects and "newest first" relies on), so this one goes after the last smaller one.
        var position = records.endIndex
        while position > records.startIndex, records[position - 1].seq > seq { position -= 1 }
        records.insert(NotificationRecord(
            seq: seq, id: id, service: service, device: Self.key(of: device), receivedAt: receivedAt, request: requestData), at: position)
        return (seq, generation)
    }

    /// Records what the phone showed for push `seq`; ignored when the state was cleared since it was accepted.
    func delivered(seq: Int, generation: Int, delivery: Data) async {
        guard generation == self.generation, let index = index(of: seq) else { return }
        records[index].delivery = delivery
        wakeWaiters()
        // A failed journal write loses only the delivery's record: a restart runs the push again.
        var line = Data(#"{"type":"delivery","seq":\#(seq),"delivery":"#.utf8)
        line.append(delivery)
        line.append(contentsOf: Array("}".utf8))
        try? await journal.append(line)
    }

    /// The notifications an apns-id or FCM message name carried, newest first.
    func notifications(id: String) -> [NotificationRecord] {
        records.filter { $0.id == id }.reversed()
    }

    /// The device's notifications, newest first.
    func notifications(deviceKey: String) -> [NotificationRecord] {
        records.filter { $0.device == deviceKey }.reversed()
    }

    /// Forgets every push, every change to the devices and the devices `--accept-any-token` registered or the
    /// control API added; the devices file's stay as the file gives them. The clock is the configured one again.
    func clear(fileDevices: [DeviceEntry]) async throws(ServeSetupError) {
        try await journal.clear()
        records = []
        uninstalled = [:]
        devices = fileDevices
        retiredFCMTokens = [:]
        lastActive = [:]
        clock.reset()
        activeSince = clock.now()
        generation += 1
        wakeWaiters()
    }

    /// Rebuilds the history from the journal; returns the pushes whose delivery was never recorded (pending).
    func replay() throws(ServeSetupError) -> (pending: [NotificationRecord], skipped: Int) {
        let (lines, skipped) = try Journal.replay(directory: dataDirectory)
        for line in lines {
            switch line["type"] as? String {
            case "device":
                guard let object = line["device"], let data = try? JSONSerialization.data(withJSONObject: object),
                      var device = try? JSONDecoder().decode(DeviceEntry.self, from: data) else { continue }
                // A line with `key` is a control API change: it replaces the device of that key, or adds one.
                if let key = line["key"] as? String {
                    if key != Self.key(of: device) { device.pinnedKey = key }
                    if let retired = line["retiredToken"] as? String { retiredFCMTokens[retired] = key }
                    if let index = devices.firstIndex(where: { Self.key(of: $0) == key }) {
                        devices[index] = device
                        continue
                    }
                }
                guard !devices.contains(where: { Self.key(of: $0) == Self.key(of: device) }) else { continue }
                devices.append(device)
            case "remove":
                guard let key = line["device"] as? String else { continue }
                devices.removeAll { Self.key(of: $0) == key }
                uninstalled[key] = nil
            case "push":
                guard let seq = line["seq"] as? Int, let id = line["id"] as? String, let service = line["service"] as? String,
                      let device = line["device"] as? String, let request = line["request"] as? [String: Any] else { continue }
                // Journal order is the order writes finished, not always `seq` order: placed by `seq`.
                var position = records.endIndex
                while position > records.startIndex, records[position - 1].seq > seq { position -= 1 }
                records.insert(NotificationRecord(
                    seq: seq, id: id, service: service, device: device, receivedAt: line["receivedAt"] as? String ?? "",
                    request: Self.encode(request)), at: position)
                nextSeq = max(nextSeq, seq + 1)
            case "uninstall":
                guard let key = line["device"] as? String, let at = (line["at"] as? NSNumber)?.int64Value else { continue }
                uninstalled[key] = at
            case "delivery":
                guard let seq = line["seq"] as? Int, let delivery = line["delivery"] as? [String: Any],
                      let index = index(of: seq) else { continue }
                records[index].delivery = Self.encode(delivery)
            default:
                continue
            }
        }
        return (records.filter { $0.delivery == nil }, skipped)
    }

    /// Waits until the device has no pending push, or `limit` passes; true when none is pending.
    func waitUntilSettled(deviceKey: String, limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while records.contains(where: { $0.device == deviceKey && $0.delivery == nil }) {
            guard ContinuousClock.now < deadline else { return false }
            let id = nextWaiter
            nextWaiter += 1
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                await self?.wake(id)
            }
            await withCheckedContinuation { waiters[id] = $0 }
            timer.cancel()
        }
        return true
    }

    private func wake(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func wakeWaiters() {
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    var currentGeneration: Int { generation }

    /// Records are in increasing `seq` order: found by bisection.
    private func index(of seq: Int) -> Int? {
        var low = 0
        var high = records.count
        while low < high {
            let middle = low + (high - low) / 2
            if records[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low < records.count && records[low].seq == seq ? low : nil
    }

    static func object(_ data: Data) -> Any {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) ?? NSNull()
    }

    /// Compact JSON, keys in no particular order: sorting them (Foundation compares with ICU) cost more than the
    /// rest of a push's bookkeeping.
    static func encode(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// The request as the control API shows it: protocol, method, path, headers (name and value pairs, the
    /// bearer token cut), body, and the ID the sender was answered with under `idKey`. Spliced, not serialized:
    /// it is made for every accepted push.
    static func requestRecord(_ request: ServerRequest, idKey: String, id: String) -> Data {
        var record = Data(#"{"protocol":"#.utf8)
        record.append(quoted(request.protocolName))
        record.append(contentsOf: Array(#","method":"#.utf8))
        record.append(quoted(request.method))
        record.append(contentsOf: Array(#","path":"#.utf8))
        record.append(quoted(request.path))
        record.append(contentsOf: Array(#","headers":["#.utf8))
        for (index, header) in request.headers.enumerated() {
            if index > 0 { record.append(contentsOf: Array(",".utf8)) }
            record.append(contentsOf: Array("[".utf8))
            record.append(quoted(header.name))
            record.append(contentsOf: Array(",".utf8))
            record.append(quoted(header.name == "authorization" ? (header.value.split(separator: " ").first.map { "\($0) …" } ?? "…") : header.value))
            record.append(contentsOf: Array("]".utf8))
        }
        record.append(contentsOf: Array(#"],"body":"#.utf8))
        record.append(quoted(String(decoding: request.body, as: UTF8.self)))
        record.append(contentsOf: Array(",".utf8))
        record.append(quoted(idKey))
        record.append(contentsOf: Array(":".utf8))
        record.append(quoted(id))
        record.append(contentsOf: Array("}".utf8))
        return record
    }

    /// A JSON string literal (RFC 8259 section 7: `"` and `\` escaped, control characters as `\n`... or
    /// `\u00XX`, every other character as its UTF-8 bytes). Written by hand: a JSONEncoder per string, twenty
    /// strings a push, cost more than the rest of journaling it.
    static func quoted(_ text: String) -> Data {
        var literal: [UInt8] = []
        literal.reserveCapacity(text.utf8.count + 2)
        literal.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: literal.append(0x5C); literal.append(byte)
            case 0x0A: literal.append(0x5C); literal.append(0x6E)
            case 0x0D: literal.append(0x5C); literal.append(0x72)
            case 0x09: literal.append(0x5C); literal.append(0x74)
            case 0x00..<0x20:
                literal.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
            default: literal.append(byte)
            }
        }
        literal.append(0x22)
        return Data(literal)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// Why the control API could not change the devices: the status it answers and a message for the user.
struct DeviceChangeError: Error, Sendable {
    var status: Int
    var message: String
}

/// The control API's changes to the devices: each is journaled before it applies, so a restart keeps it, and a
/// clear undoes it (the devices file's devices come back as the file gives them).
extension ServeState {
    /// The most devices the control API adds up to: memory stays bounded whatever a client sends.
    static let maxDevices = 100_000

    /// Adds a device; its tokens must be no other device's, nor a token a rotation retired.
    func add(_ device: DeviceEntry) async throws(DeviceChangeError) -> DeviceEntry {
        let key = Self.key(of: device)
        guard devices.count < Self.maxDevices else {
            throw DeviceChangeError(status: 400, message: "The emulator holds at most \(Self.maxDevices) devices; remove some first.")
        }
        if let apns = device.apns, self.device(apnsToken: apns.token) != nil {
            throw DeviceChangeError(status: 409, message: "The APNs token \(apns.token) is already another device's.")
        }
        if let fcm = device.fcm, self.device(fcmToken: fcm.token) != nil || isRetired(fcmToken: fcm.token) {
            throw DeviceChangeError(status: 409, message: "The FCM token \(fcm.token) is already another device's, or was one.")
        }
        if devices.contains(where: { Self.key(of: $0) == key }) {
            throw DeviceChangeError(status: 409, message: "A device already has the key \(key).")
        }
        try await journalDevice(device, key: key)
        devices.append(device)
        lastActive[key] = clock.now()
        uninstalled[key] = nil
        return device
    }

    /// Replaces the device of `key` with `change(device)`; its tokens stay (a rotation changes the FCM token).
    func update(key: String, _ change: @Sendable (DeviceEntry) throws(DeviceChangeError) -> DeviceEntry) async throws(DeviceChangeError) -> DeviceEntry {
        guard let index = devices.firstIndex(where: { Self.key(of: $0) == key }) else {
            throw DeviceChangeError(status: 404, message: "No device has the token \(key).")
        }
        var changed = try change(devices[index])
        changed.pinnedKey = devices[index].pinnedKey
        try await journalDevice(changed, key: key)
        // The journal write let other calls in: the device is found again by its key.
        if let again = devices.firstIndex(where: { Self.key(of: $0) == key }) { devices[again] = changed }
        touch(key)
        return changed
    }

    /// Gives the device a new FCM registration token (`newToken`, or one made up); the old one is UNREGISTERED
    /// from now on. The device keeps its key, so its history stays where it was.
    func rotateFCMToken(key: String, to newToken: String?) async throws(DeviceChangeError) -> (device: DeviceEntry, old: String) {
        guard let index = devices.firstIndex(where: { Self.key(of: $0) == key }) else {
            throw DeviceChangeError(status: 404, message: "No device has the token \(key).")
        }
        guard let old = devices[index].fcm?.token else {
            throw DeviceChangeError(status: 400, message: "The device has no FCM token to rotate.")
        }
        let token = newToken ?? Self.madeUpFCMToken()
        guard !token.isEmpty, token.utf8.count <= 4096, !token.contains(where: \.isWhitespace) else {
            throw DeviceChangeError(status: 400, message: "An FCM token is 1 to 4096 characters without spaces.")
        }
        if device(fcmToken: token) != nil || isRetired(fcmToken: token) {
            throw DeviceChangeError(status: 409, message: "The FCM token \(token) is already another device's, or was one.")
        }
        var rotated = devices[index]
        rotated.fcm?.token = token
        rotated.pinnedKey = key == Self.key(of: rotated) ? nil : key
        try await journalDevice(rotated, key: key, retiredToken: old)
        if let again = devices.firstIndex(where: { Self.key(of: $0) == key }) { devices[again] = rotated }
        retiredFCMTokens[old] = key
        // A new token is a fresh one: its inactivity counts from now.
        lastActive[key] = clock.now()
        return (rotated, old)
    }

    /// Removes the device: its tokens are unknown from now on. Its pushes stay in the journal until a clear.
    func remove(key: String) async throws(DeviceChangeError) -> DeviceEntry {
        guard let device = devices.first(where: { Self.key(of: $0) == key }) else {
            throw DeviceChangeError(status: 404, message: "No device has the token \(key).")
        }
        do {
            try await journal.append(Self.encode(["type": "remove", "device": key]))
        } catch {
            throw DeviceChangeError(status: 500, message: error.description)
        }
        devices.removeAll { Self.key(of: $0) == key }
        uninstalled[key] = nil
        lastActive[key] = nil
        return device
    }

    private func journalDevice(_ device: DeviceEntry, key: String, retiredToken: String? = nil) async throws(DeviceChangeError) {
        let encoded = (try? JSONEncoder().encode(device)) ?? Data()
        var line: [String: Any] = ["type": "device", "key": key, "device": (try? JSONSerialization.jsonObject(with: encoded)) ?? [:]]
        if let retiredToken { line["retiredToken"] = retiredToken }
        do {
            try await journal.append(Self.encode(line))
        } catch {
            throw DeviceChangeError(status: 500, message: error.description)
        }
    }

    /// A token in the form the Firebase SDKs report: an installation ID, `:APA91b`, then more random characters.
    static func madeUpFCMToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> String {
            String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        }
        return random(22) + ":APA91b" + random(134)
    }
}
