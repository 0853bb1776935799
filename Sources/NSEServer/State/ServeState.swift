import Foundation
import NSEConcurrency
import NSEPush
import Synchronization

/// One push the server accepted, and what its phone showed once the pipeline finished: read back from the
/// journal when asked for, never kept.
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

    /// `"seq":N,"id":...,"service":...,"device":...,"receivedAt":...`: the fields a push's journal line and its
    /// notification as shown share, in that order.
    static func identityFields(seq: Int, id: String, service: String, device: String, receivedAt: String) -> Data {
        var fields = Array(#""seq":\#(seq),"id":"#.utf8)
        JSONStringLiteral.append(id, to: &fields)
        fields.append(contentsOf: #","service":"#.utf8)
        JSONStringLiteral.append(service, to: &fields)
        fields.append(contentsOf: #","device":"#.utf8)
        JSONStringLiteral.append(device, to: &fields)
        fields.append(contentsOf: #","receivedAt":"#.utf8)
        JSONStringLiteral.append(receivedAt, to: &fields)
        return Data(fields)
    }

    /// The notification as the control API and the events stream show it, spliced from the stored JSON:
    /// thousands cost no decoding and re-encoding.
    func json() -> Data {
        var body = Data("{".utf8)
        body.append(Self.identityFields(seq: seq, id: id, service: service, device: device, receivedAt: receivedAt))
        body.append(contentsOf: Array(#","status":"\#(delivery == nil ? "pending" : "delivered")","request":"#.utf8))
        body.append(request)
        // The delivery is the object {"phone": ..., "result": ...}: its members join this one.
        if let delivery, delivery.count > 2 {
            body.append(contentsOf: Array(",".utf8))
            body.append(delivery.dropFirst().dropLast())
        }
        body.append(contentsOf: Array("}".utf8))
        return body
    }

    /// Reads a push line as `accept` writes it (and its delivery line's `delivery`): the small head is decoded,
    /// the request is kept as the bytes it is.
    init?(pushLine line: Data, delivery: Data?) {
        guard let marker = Self.firstRange(of: Self.requestMarker, in: line), line.last == UInt8(ascii: "}") else { return nil }
        var head = Data(line[line.startIndex..<marker.lowerBound])
        head.append(UInt8(ascii: "}"))
        guard let object = (try? JSONSerialization.jsonObject(with: head)) as? [String: Any],
              let seq = (object["seq"] as? NSNumber)?.intValue, let id = object["id"] as? String,
              let service = object["service"] as? String, let device = object["device"] as? String else { return nil }
        self.seq = seq
        self.id = id
        self.service = service
        self.device = device
        receivedAt = object["receivedAt"] as? String ?? ""
        request = Data(line[marker.upperBound..<line.index(before: line.endIndex)])
        self.delivery = delivery
    }

    init(seq: Int, id: String, service: String, device: String, receivedAt: String, request: Data, delivery: Data? = nil) {
        (self.seq, self.id, self.service, self.device, self.receivedAt, self.request, self.delivery) =
            (seq, id, service, device, receivedAt, request, delivery)
    }

    /// `request` is the last member of a push line: the first `,"request":` in it is the key (inside a JSON
    /// string a quote is escaped, so the text cannot appear there).
    static let requestMarker = Data(#","request":"#.utf8)
    static let deliveryMarker = Data(#","delivery":"#.utf8)

    /// Where `marker` first occurs in `line`, found with memchr and memcmp over the bytes. Foundation's generic
    /// `firstRange(of:)` walked them an index at a time: a fifth of the CPU of a push read back from the journal.
    static func firstRange(of marker: Data, in line: Data) -> Range<Data.Index>? {
        let offset = line.withUnsafeBytes { haystack in
            marker.withUnsafeBytes { needle -> Int? in
                guard let start = haystack.baseAddress, let wanted = needle.baseAddress, let first = needle.first else { return nil }
                var from = 0
                while haystack.count - from >= needle.count {
                    guard let found = memchr(start + from, Int32(first), haystack.count - from - needle.count + 1) else { return nil }
                    let at = start.distance(to: UnsafeRawPointer(found))
                    if memcmp(found, wanted, needle.count) == 0 { return at }
                    from = at + 1
                }
                return nil
            }
        }
        guard let offset else { return nil }
        let lower = line.index(line.startIndex, offsetBy: offset)
        return lower..<line.index(lower, offsetBy: marker.count)
    }

    /// The `delivery` object of a delivery line, and the head's `seq` and `push` (the push line's position).
    static func deliveryLine(_ line: Data) -> (seq: Int, push: Int64?, delivery: Data)? {
        guard let marker = firstRange(of: deliveryMarker, in: line), line.last == UInt8(ascii: "}") else { return nil }
        var head = Data(line[line.startIndex..<marker.lowerBound])
        head.append(UInt8(ascii: "}"))
        guard let object = (try? JSONSerialization.jsonObject(with: head)) as? [String: Any],
              let seq = (object["seq"] as? NSNumber)?.intValue else { return nil }
        return (seq, (object["push"] as? NSNumber)?.int64Value, Data(line[marker.upperBound..<line.index(before: line.endIndex)]))
    }
}

/// The server's devices and history. Every change that an answer depends on is journaled first. The history
/// itself lives on disk: the journal, and an index of where each push is (`HistoryIndex`); what stays in memory
/// grows with the devices, not with the pushes.
actor ServeState {
    private(set) var devices: [DeviceEntry] {
        didSet { tokens = DeviceTokens(devices) }
    }
    /// The devices by their tokens (`device(apnsToken:)` and the others).
    private var tokens: DeviceTokens
    /// Devices whose app was uninstalled, by key: when (milliseconds since 1970), for APNs's 410 `timestamp`.
    private var uninstalled: [String: Int64] = [:]
    /// Each device's newest push (the head of its chain in the index), by key.
    private var newest: [String: Int] = [:]
    /// Each device's pushes accepted and not yet delivered, by key (`?settled=1` waits for none).
    private var pendingCount: [String: Int] = [:]
    private var nextSeq: Int
    /// Bumped by a clear: deliveries of pushes accepted before it are dropped, not journaled.
    private var generation = 0
    let journal: Journal
    private let index: HistoryIndex
    let events = EventHub()
    /// Control API requests waiting for a device's pushes to settle, woken at every change.
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    let dataDirectory: URL
    /// What the start read back from the journal: the pushes without a delivery, the lines it could not read, and
    /// how much of the journal it read (all of it, or the lines after a checkpoint).
    private let replayed: StartRead
    /// The journal lines before the journal's end that could not be read (a checkpoint keeps the count).
    private var journalSkipped: Int
    /// `JournalCheckpoint.devicesFileHash` of the devices file's devices.
    private let devicesFileHash: String
    /// The checkpoint being written, which the next one waits for.
    private var checkpointWrite: Task<Void, Never>?
    /// Bumped by a clear: a checkpoint taken before it is not put in place.
    private var checkpointEpoch = 0

    let clock: EmulatorClock
    /// FCM registration tokens replaced by a rotation or a reinstall, and the key of the device they were: FCM
    /// answers them UNREGISTERED.
    private var retiredFCMTokens: RetiredTokens
    /// APNs tokens (lowercase) and Firebase Installation IDs a reinstall replaced: the key of the device they were,
    /// and for an APNs token when the app it belonged to was uninstalled (APNs's 410 `timestamp`).
    private var retiredAPNsTokens: RetiredTokens
    private var retiredFIDs: RetiredTokens
    /// The most tokens of each kind kept retired (`RetiredTokens`): past it the oldest answers as an unknown one.
    let retiredTokenLimit: Int
    /// Devices `--accept-any-token` is registering (their journal lines being written), counted against the cap.
    private var registering = 0
    /// When each device was last seen active (by key); a device not in it has been since `activeSince`.
    private var lastActive: [String: Date] = [:]
    private var activeSince: Date
    /// Whether the journal has `activeSince` (an `active` line without a device); `journalActivityStart` writes it.
    private var activeSinceJournaled: Bool
    /// How long an FCM token may stay inactive before FCM expires it; nil: never.
    let fcmTokenExpiry: TimeInterval?

    /// What the start read of the journal.
    struct StartRead: Sendable {
        /// The pushes without a delivery (to run again), oldest first.
        var pending: [Int]
        /// Lines that could not be read, a last line a crash cut short included.
        var skipped: Int
        /// The lines read: all of the journal's, or those after the checkpoint.
        var lines: Int
        var bytes: Int64
        var fromCheckpoint: Bool
        /// Why a checkpoint found was not used (the whole journal was read).
        var checkpointRejected: String?
    }

    /// Reads the data folder's journal back (see `replay()`), rebuilding the index and the devices' changes, then
    /// opens it for appends. With a checkpoint it can trust (`JournalCheckpoint`), only the lines after it are read,
    /// over the state and the index it vouches for.
    init(
        devices: [DeviceEntry], dataDirectory: URL, clock: EmulatorClock = EmulatorClock(base: { Date() }), fcmTokenExpiry: TimeInterval? = nil,
        retiredTokenLimit: Int = RetiredTokens.defaultLimit
    ) throws(ServeSetupError) {
        self.dataDirectory = dataDirectory
        self.retiredTokenLimit = retiredTokenLimit
        self.clock = clock
        self.fcmTokenExpiry = fcmTokenExpiry
        devicesFileHash = JournalCheckpoint.devicesFileHash(devices)
        let (checkpoint, rejected) = JournalCheckpoint.load(in: dataDirectory, devicesFile: devicesFileHash)
        let index: HistoryIndex
        var loaded: Loaded
        if let checkpoint {
            index = try HistoryIndex(directory: dataDirectory, firstSeq: checkpoint.indexFirstSeq, keepingEntries: true)
            loaded = Loaded(devices: devices, checkpoint: checkpoint, retiredTokenLimit: retiredTokenLimit)
        } else {
            // Gone before the index is emptied: a checkpoint must never vouch for an index rebuilt halfway.
            JournalCheckpoint.remove(in: dataDirectory)
            index = try HistoryIndex(directory: dataDirectory, firstSeq: 1)
            loaded = Loaded(devices: devices, retiredTokenLimit: retiredTokenLimit)
        }
        let start = checkpoint.map { $0.position - $0.base } ?? 0
        var lines = 0
        let url = dataDirectory.appendingPathComponent(Journal.fileName)
        let (validEnd, fileEnd) = try Journal.scan(url: url, from: start) { offset, line in
            lines += 1
            loaded.read(line, at: offset, index: index)
            return true
        }
        journalSkipped = loaded.skipped
        // A last line without its newline: cut short by a crash mid-write.
        if fileEnd > validEnd { loaded.skipped += 1 }
        self.devices = loaded.devices
        tokens = DeviceTokens(loaded.devices)
        uninstalled = loaded.uninstalled
        retiredFCMTokens = loaded.retiredFCMTokens
        retiredAPNsTokens = loaded.retiredAPNsTokens
        retiredFIDs = loaded.retiredFIDs
        // The clock and the devices' activity as the journal left them (`clock` and `active` lines).
        clock.restore(offset: loaded.clockOffset)
        lastActive = loaded.lastActive.mapValues(Self.date(milliseconds:))
        activeSince = loaded.activeSince.map(Self.date(milliseconds:)) ?? clock.now()
        activeSinceJournaled = loaded.activeSince != nil
        newest = loaded.newest
        nextSeq = loaded.nextSeq
        self.index = index
        let journal = try Journal(directory: dataDirectory, validEnd: validEnd, base: loaded.base)
        self.journal = journal
        if checkpoint != nil {
            // The pushes pending before the checkpoint are the index's entries without a delivery, or with one whose
            // line a crash of the machine lost.
            loaded.pending = Set(index.pendingSeqs(deliveriesBefore: loaded.base + validEnd))
            for seq in loaded.pending where loaded.deviceOfPending[seq] == nil {
                guard let push = index.entry(seq)?.push, let line = journal.read(at: push.position, length: push.length) else { continue }
                loaded.deviceOfPending[seq] = NotificationRecord(pushLine: line, delivery: nil)?.device
            }
        }
        let pending = loaded.pending.sorted()
        for seq in pending {
            if let device = loaded.deviceOfPending[seq] { pendingCount[device, default: 0] += 1 }
        }
        replayed = StartRead(
            pending: pending, skipped: loaded.skipped, lines: lines, bytes: fileEnd - start, fromCheckpoint: checkpoint != nil,
            checkpointRejected: rejected)
    }

    /// What the journal's lines add up to, read in order at start.
    private struct Loaded {
        /// The devices file's; a clear line brings them back as the file gives them.
        let fileDevices: [DeviceEntry]
        var devices: [DeviceEntry]
        var uninstalled: [String: Int64] = [:]
        var retiredFCMTokens: RetiredTokens
        var retiredAPNsTokens: RetiredTokens
        var retiredFIDs: RetiredTokens
        var newest: [String: Int] = [:]
        var nextSeq = 1
        var base: Int64 = 0
        var skipped = 0
        /// The clock's offset (`clock` lines), each device's last activity and the time inactivity counts from for
        /// the others (`active` lines), in milliseconds on the emulator's clock.
        var clockOffset: TimeInterval = 0
        var lastActive: [String: Int64] = [:]
        var activeSince: Int64?
        /// Pushes seen without their delivery yet; at the end, the pending ones.
        var pending: Set<Int> = []
        var deviceOfPending: [Int: String] = [:]

        init(devices: [DeviceEntry], retiredTokenLimit: Int) {
            fileDevices = devices
            self.devices = devices
            retiredFCMTokens = RetiredTokens(limit: retiredTokenLimit)
            (retiredAPNsTokens, retiredFIDs) = (retiredFCMTokens, retiredFCMTokens)
        }

        /// The state a checkpoint recorded; the journal's lines after it are read next.
        init(devices: [DeviceEntry], checkpoint: JournalCheckpoint, retiredTokenLimit: Int) {
            fileDevices = devices
            self.devices = checkpoint.devices.map { saved in
                var device = saved.device
                if saved.key != ServeState.key(of: device) { device.pinnedKey = saved.key }
                return device
            }
            (uninstalled, newest) = (checkpoint.uninstalled, checkpoint.newest)
            retiredFCMTokens = RetiredTokens(limit: retiredTokenLimit, entries: checkpoint.retiredFCMTokens)
            retiredAPNsTokens = RetiredTokens(limit: retiredTokenLimit, entries: checkpoint.retiredAPNsTokens)
            retiredFIDs = RetiredTokens(limit: retiredTokenLimit, entries: checkpoint.retiredFIDs)
            (nextSeq, base, skipped) = (checkpoint.nextSeq, checkpoint.base, checkpoint.skipped)
            (clockOffset, lastActive, activeSince) = (checkpoint.clockOffset, checkpoint.lastActive, checkpoint.activeSince)
        }

        /// Applies the line at byte `offset` of the journal file. Reading a line whose change the state already has
        /// (a checkpoint taken while its append returned) changes nothing more.
        mutating func read(_ line: Data, at offset: Int64, index: HistoryIndex) {
            // The journal position: past the bytes a clear emptied (the `clear` line, the file's first, says how many).
            let position = base + offset
            if line.starts(with: Data(#"{"type":"push","#.utf8)) {
                guard let record = NotificationRecord(pushLine: line, delivery: nil), record.seq >= index.firstSeq,
                      record.seq - index.firstSeq < 1 << 40 else {
                    skipped += 1
                    return
                }
                let seq = record.seq
                // Journal order is the order writes finished, not always `seq` order: the chain stays in `seq`
                // order, newest first, so a push that finished late is linked in below the newer ones.
                var entry = HistoryIndex.Entry(push: (position, line.count), delivery: nil, previous: 0, idHash: HistoryIndex.hash(record.id))
                var later: Int?
                var cursor = newest[record.device] ?? 0
                while cursor > seq, let found = index.entry(cursor) {
                    later = cursor
                    cursor = found.previous
                }
                if cursor == seq, let linked = index.entry(seq) {
                    // Already in the chain (`accept` links a push before its line is written): only its place is new.
                    entry.previous = linked.previous
                    index.write(seq, entry)
                } else {
                    entry.previous = cursor
                    index.write(seq, entry)
                    if let later, var laterEntry = index.entry(later) {
                        laterEntry.previous = seq
                        index.write(later, laterEntry)
                    } else {
                        newest[record.device] = seq
                    }
                }
                nextSeq = max(nextSeq, seq + 1)
                pending.insert(seq)
                deviceOfPending[seq] = record.device
                return
            }
            if line.starts(with: Data(#"{"type":"delivery","#.utf8)) {
                guard let delivery = NotificationRecord.deliveryLine(line) else {
                    skipped += 1
                    return
                }
                guard var entry = index.entry(delivery.seq), entry.push != nil else { return }
                entry.delivery = (position, line.count)
                index.write(delivery.seq, entry)
                pending.remove(delivery.seq)
                deviceOfPending.removeValue(forKey: delivery.seq)
                return
            }
            guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
                skipped += 1
                return
            }
            switch object["type"] as? String {
            case "clear":
                // The first line of a journal a clear emptied: where numbering goes on.
                base = (object["base"] as? NSNumber)?.int64Value ?? 0
                nextSeq = max(nextSeq, (object["nextSeq"] as? NSNumber)?.intValue ?? 1)
                index.reset(firstSeq: nextSeq)
                // A clear forgets every change to the devices too (`ServeState.clear`).
                (newest, pending, deviceOfPending, uninstalled) = ([:], [], [:], [:])
                retiredFCMTokens = RetiredTokens(limit: retiredFCMTokens.limit)
                (retiredAPNsTokens, retiredFIDs) = (retiredFCMTokens, retiredFCMTokens)
                devices = fileDevices
                (clockOffset, lastActive, activeSince) = (0, [:], nil)
            case "device":
                guard let described = object["device"], let data = try? JSONSerialization.data(withJSONObject: described),
                      var device = try? JSONDecoder().decode(DeviceEntry.self, from: data) else { return }
                // A line with `key` is a control API change (added, changed, topics, a rotation): it replaces the
                // device of that key, or adds one. Without: a device `--accept-any-token` registered.
                if let key = object["key"] as? String {
                    if key != ServeState.key(of: device) { device.pinnedKey = key }
                    if let retired = object["retiredToken"] as? String { retiredFCMTokens.insert(retired, .init(key: key)) }
                    if let found = devices.firstIndex(where: { ServeState.key(of: $0) == key }) {
                        devices[found] = device
                        return
                    }
                }
                guard !devices.contains(where: { ServeState.key(of: $0) == ServeState.key(of: device) }) else { return }
                devices.append(device)
            case "remove":
                guard let key = object["device"] as? String else { return }
                devices.removeAll { ServeState.key(of: $0) == key }
                uninstalled[key] = nil
                lastActive[key] = nil
            case "clock":
                guard let offset = (object["offset"] as? NSNumber)?.doubleValue, offset.isFinite else { return }
                clockOffset = offset
            case "active":
                guard let at = (object["at"] as? NSNumber)?.int64Value else { return }
                if let key = object["device"] as? String {
                    lastActive[key] = at
                } else {
                    activeSince = at
                }
            case "uninstall":
                guard let key = object["device"] as? String, let at = (object["at"] as? NSNumber)?.int64Value else { return }
                uninstalled[key] = at
            case "reinstall":
                // `ServeState.reinstall`: the device with new tokens, installed again; the tokens it replaced retired.
                guard let key = object["key"] as? String, let described = object["device"],
                      let data = try? JSONSerialization.data(withJSONObject: described),
                      var device = try? JSONDecoder().decode(DeviceEntry.self, from: data),
                      let found = devices.firstIndex(where: { ServeState.key(of: $0) == key }) else { return }
                if key != ServeState.key(of: device) { device.pinnedKey = key }
                devices[found] = device
                let at = (object["uninstalledAt"] as? NSNumber)?.int64Value ?? uninstalled[key] ?? 0
                if let retired = object["retiredAPNsToken"] as? String {
                    retiredAPNsTokens.insert(APNsToken.normalized(retired), .init(key: key, uninstalledAt: at))
                }
                if let retired = object["retiredFCMToken"] as? String { retiredFCMTokens.insert(retired, .init(key: key)) }
                if let retired = object["retiredFID"] as? String { retiredFIDs.insert(retired, .init(key: key)) }
                uninstalled[key] = nil
            default:
                return
            }
        }
    }

    /// A device's stable key in the control API: its APNs token (lowercase), else its FCM token, as it was when
    /// the device was registered (a rotated FCM token does not move its history).
    static func key(of device: DeviceEntry) -> String {
        device.pinnedKey ?? device.apns.map { APNsToken.normalized($0.token) } ?? device.fcm?.token ?? device.name
    }

    func device(apnsToken: String) -> DeviceEntry? {
        tokens.apns(apnsToken).map { devices[$0] }
    }

    /// The device of an APNs token and when its app was uninstalled (`uninstalledAt`): what an APNs request's
    /// checks ask the state, in one visit.
    func deviceAndUninstalled(apnsToken: String) -> (device: DeviceEntry, uninstalledAt: Int64?)? {
        if let device = device(apnsToken: apnsToken) { return (device, uninstalledAt(device)) }
        // A token a reinstall replaced is the uninstalled app's: APNs answers it 410 Unregistered, as before.
        guard !retiredAPNsTokens.isEmpty, let retired = retiredAPNsTokens[APNsToken.normalized(apnsToken)],
              let device = tokens.any(retired.key).map({ devices[$0] }) else { return nil }
        return (device, retired.uninstalledAt ?? 0)
    }

    func device(fcmToken: String) -> DeviceEntry? {
        tokens.fcm(fcmToken).map { devices[$0] }
    }

    /// The device whose Firebase Installation ID is `fid` (FCM's `message.fid` target).
    func device(fid: String) -> DeviceEntry? {
        tokens.fid(fid).map { devices[$0] }
    }

    /// The device of an FCM token and whether FCM answers it UNREGISTERED (`fcmTokenUnregistered`), in one visit.
    func deviceAndUnregistered(fcmToken: String) -> (device: DeviceEntry, unregistered: Bool)? {
        device(fcmToken: fcmToken).map { ($0, fcmTokenUnregistered($0)) }
    }

    /// The same for a Firebase Installation ID (FCM's `message.fid` target).
    func deviceAndUnregistered(fid: String) -> (device: DeviceEntry, unregistered: Bool)? {
        if let device = device(fid: fid) { return (device, fcmTokenUnregistered(device)) }
        // An installation a reinstall replaced was deleted with the app: UNREGISTERED, as while it was uninstalled.
        guard let key = retiredFIDs[fid]?.key, let device = tokens.any(key).map({ devices[$0] }) else { return nil }
        return (device, true)
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
    private func touch(_ key: String) async {
        if !isExpired(key) { await markActive(key) }
    }

    /// The device was active now: journaled (an `active` line), so a restart counts its inactivity from here too.
    /// A failed write loses only this: the device counts as active since its previous activity.
    private func markActive(_ key: String) async {
        let now = clock.now()
        lastActive[key] = now
        _ = try? await journal.append(Self.encode(["type": "active", "device": key, "at": Self.milliseconds(now)]))
    }

    /// Journals when inactivity counts from for devices with no activity of their own (the first start, or the
    /// last clear), unless the journal already says: a restart is no activity.
    func journalActivityStart() async throws(ServeSetupError) {
        guard !activeSinceJournaled else { return }
        try await journal.append(Self.encode(["type": "active", "at": Self.milliseconds(activeSince)]))
        activeSinceJournaled = true
    }

    /// Sets the emulator's clock (`now`) or moves it (`advance` seconds), and journals its offset so a restarted
    /// server's clock reads as if it had run on. Returns the clock's time.
    func changeClock(now: Date? = nil, advance: TimeInterval? = nil) async throws(ServeSetupError) -> Date {
        if let now { clock.set(now) }
        if let advance { clock.advance(by: advance) }
        try await journal.append(Self.encode(["type": "clock", "offset": clock.offsetSeconds]))
        return clock.now()
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// The device with this key, APNs token (any case), FCM token or Firebase Installation ID, or one of these a
    /// rotation or a reinstall replaced.
    func device(key: String) -> DeviceEntry? {
        if let index = tokens.any(key) { return devices[index] }
        guard let retired = retiredAPNsTokens[APNsToken.normalized(key)]?.key ?? retiredFCMTokens[key]?.key ?? retiredFIDs[key]?.key else { return nil }
        return tokens.any(retired).map { devices[$0] }
    }

    /// Whether a device `--accept-any-token` makes up may be registered: the emulator holds at most `maxDevices`,
    /// as the control API does, so a sender of random tokens cannot grow its memory without bound.
    func hasRoomForDevice() -> Bool {
        devices.count + registering < Self.maxDevices
    }

    /// Registers a device that `--accept-any-token` made up for an unknown token; journaled, so a restart keeps it.
    /// Returns the device pushes to its token go to (another request's, when it registered the token first), or nil
    /// when the emulator already holds `maxDevices`: the token stays unknown.
    func register(_ device: DeviceEntry) async throws(ServeSetupError) -> DeviceEntry? {
        if let registered = self.device(apnsToken: device.apns?.token ?? "") { return registered }
        guard hasRoomForDevice() else { return nil }
        // The place is held while the line is written, so registrations waiting on the journal together cannot pass
        // the cap.
        registering += 1
        defer { registering -= 1 }
        let encoded = (try? JSONEncoder().encode(device)) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: encoded)) ?? [:]
        try await journal.append(Self.encode(["type": "device", "device": object]))
        // The journal write let other calls in: one may have registered the same token.
        if let registered = self.device(apnsToken: device.apns?.token ?? "") { return registered }
        devices.append(device)
        return device
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
    ///
    /// `delivery`: what the phone showed, when the push was delivered before its sender's answer (`Deliveries.accept`).
    /// Its delivery line is then written with the push's, in the same write, and the push is never pending.
    func accept(
        id: String, service: String, device: DeviceEntry, request requestData: Data, delivery: Data? = nil
    ) async throws(ServeSetupError) -> (seq: Int, generation: Int) {
        let seq = nextSeq
        nextSeq += 1
        let key = Self.key(of: device)
        let receivedAt = ServeIDs.timestamp(Date())
        let acceptedIn = generation
        // The chain is linked now, in `seq` order; the entry gets its position once the line is on disk (a
        // failed write leaves a link with no push, which readers step over).
        var entry = HistoryIndex.Entry(push: nil, delivery: nil, previous: newest[key] ?? 0, idHash: HistoryIndex.hash(id))
        index.write(seq, entry)
        newest[key] = seq
        // Spliced from parts already encoded: a push's line costs no decoding and re-encoding of its request.
        var line = Data(#"{"type":"push","#.utf8)
        line.append(NotificationRecord.identityFields(seq: seq, id: id, service: service, device: key, receivedAt: receivedAt))
        line.append(contentsOf: Array(#","request":"#.utf8))
        line.append(requestData)
        line.append(contentsOf: Array("}".utf8))
        let length = line.count
        let events = events
        var follower: (@Sendable (Int64) -> Data)?
        if let delivery {
            follower = { position in Self.deliveryLine(seq: seq, push: position, delivery: delivery) }
        }
        let position = try await journal.append(line, durable: { position in
            events.publish(id: position, name: "accepted", device: key) {
                NotificationRecord(seq: seq, id: id, service: service, device: key, receivedAt: receivedAt, request: requestData).json()
            }
            if let delivery {
                events.publish(id: position + Int64(length) + 1, name: "notification", device: key) {
                    NotificationRecord(seq: seq, id: id, service: service, device: key, receivedAt: receivedAt, request: requestData, delivery: delivery).json()
                }
            }
        }, follower: follower)
        // A clear while the line was written emptied the journal after it: the push is forgotten with the rest.
        guard generation == acceptedIn else { return (seq, acceptedIn) }
        entry.push = (position, length)
        if let delivery {
            entry.delivery = (position + Int64(length) + 1, Self.deliveryLine(seq: seq, push: position, delivery: Data()).count + delivery.count)
        } else {
            pendingCount[key, default: 0] += 1
        }
        index.write(seq, entry)
        return (seq, acceptedIn)
    }

    /// A delivery's journal line: what push `seq` (its line at `push`) showed on its phone.
    private static func deliveryLine(seq: Int, push: Int64, delivery: Data) -> Data {
        var line = Data(#"{"type":"delivery","seq":\#(seq),"push":\#(push),"delivery":"#.utf8)
        line.append(delivery)
        line.append(contentsOf: Array("}".utf8))
        return line
    }

    /// Records what the phone showed for push `seq` (on device `deviceKey`); ignored when the state was cleared
    /// since it was accepted.
    func delivered(seq: Int, deviceKey: String, generation: Int, delivery: Data) async {
        guard generation == self.generation, let entry = index.entry(seq), let push = entry.push else { return }
        let line = Self.deliveryLine(seq: seq, push: push.position, delivery: delivery)
        let length = line.count
        let (events, journal) = (events, journal)
        // A failed journal write loses only the delivery's record: a restart runs the push again. No answer waits for
        // it, so it is not fsync'd on its own (`synced: false`): a crash of the machine before the next fsync loses
        // it the same way.
        let position = try? await journal.append(line, synced: false) { position in
            events.publish(id: position, name: "notification", device: deviceKey) {
                journal.read(at: push.position, length: push.length).flatMap { NotificationRecord(pushLine: $0, delivery: delivery)?.json() }
            }
        }
        guard generation == self.generation else { return }
        if let position, var written = index.entry(seq) {
            written.delivery = (position, length)
            index.write(seq, written)
        }
        if let count = pendingCount[deviceKey] {
            pendingCount[deviceKey] = count > 1 ? count - 1 : nil
        }
        wakeWaiters()
    }

    /// The push `seq` as the journal recorded it, with its delivery when there is one; nil when it has none.
    func record(seq: Int) -> NotificationRecord? {
        guard let entry = index.entry(seq) else { return nil }
        return record(entry)
    }

    private func record(_ entry: HistoryIndex.Entry) -> NotificationRecord? {
        guard let push = entry.push, let line = journal.read(at: push.position, length: push.length) else { return nil }
        let delivery = entry.delivery.flatMap { journal.read(at: $0.position, length: $0.length) }.flatMap { NotificationRecord.deliveryLine($0)?.delivery }
        return NotificationRecord(pushLine: line, delivery: delivery)
    }

    /// The notifications an apns-id or FCM message name carried, newest first.
    func notifications(id: String) -> [NotificationRecord] {
        index.seqs(idHash: HistoryIndex.hash(id)).reversed().compactMap { record(seq: $0) }.filter { $0.id == id }
    }

    /// One page of the device's notifications, newest first, read back from the journal: up to `limit` from push
    /// `start` (nil: the newest) down its chain in the index, ending once the page holds `maxBytes` of stored JSON,
    /// so a long list is read a page at a time and the state is not held for all of it. `next` is where the next
    /// page starts; nil past the oldest.
    func notifications(deviceKey: String, from start: Int?, limit: Int, maxBytes: Int = .max) -> (records: [NotificationRecord], next: Int?) {
        var found: [NotificationRecord] = []
        var bytes = 0
        var seq = start ?? newest[deviceKey] ?? 0
        while seq > 0, found.count < limit, bytes < maxBytes {
            // No entry: cleared since the page before, or never written.
            guard let entry = index.entry(seq) else { return (found, nil) }
            if let record = record(entry) {
                found.append(record)
                bytes += record.request.count + (record.delivery?.count ?? 0)
            }
            // A link to itself or a newer push cannot be this server's: the walk stops rather than loop.
            guard entry.previous < seq else { return (found, nil) }
            seq = entry.previous
        }
        return (found, seq > 0 ? seq : nil)
    }

    /// Forgets every push, every change to the devices and the devices `--accept-any-token` registered or the
    /// control API added; the devices file's stay as the file gives them. The clock is the configured one again.
    /// Numbering goes on (the clear line says from where), so an events client's `Last-Event-ID` stays meaningful.
    func clear(fileDevices: [DeviceEntry]) async throws(ServeSetupError) {
        // The checkpoint describes the journal about to be emptied: gone first, and none under way is put in place.
        checkpointEpoch += 1
        JournalCheckpoint.remove(in: dataDirectory)
        let next = nextSeq
        try await journal.clear { base in Self.encode(["type": "clear", "base": base, "nextSeq": next]) }
        index.reset(firstSeq: nextSeq)
        newest = [:]
        pendingCount = [:]
        uninstalled = [:]
        devices = fileDevices
        retiredFCMTokens = RetiredTokens(limit: retiredTokenLimit)
        retiredAPNsTokens = retiredFCMTokens
        retiredFIDs = retiredFCMTokens
        lastActive = [:]
        clock.reset()
        activeSince = clock.now()
        activeSinceJournaled = false
        generation += 1
        wakeWaiters()
        try await journalActivityStart()
    }

    /// What the start read: the pushes it found without a delivery (pending, to run again), the journal lines it
    /// skipped, and how many it read.
    func replay() -> StartRead {
        replayed
    }

    /// Writes a checkpoint each time the journal has grown by `bytes`, and one now when the start read at least
    /// that much, so a restart (after a crash too) reads at most about that much of the journal.
    func checkpointEvery(_ bytes: Int64) {
        journal.onGrowth(every: bytes) { [weak self] in
            Task { await self?.checkpoint() }
        }
        if replayed.bytes >= bytes { Task { await checkpoint() } }
    }

    /// Writes a checkpoint of the state (`JournalCheckpoint`), after the one under way if any.
    func checkpoint() async {
        let previous = checkpointWrite
        let write = Task {
            await previous?.value
            await writeCheckpoint()
        }
        checkpointWrite = write
        await write.value
    }

    private func writeCheckpoint() async {
        // Every line before `position` has its change in this state (`Journal.settledPosition`); the few after it
        // that may have theirs too are read again at the start.
        let position = journal.settledPosition
        let base = journal.basePosition
        guard position >= base else { return }
        let epoch = checkpointEpoch
        let snapshot = JournalCheckpoint(
            position: position, base: base, indexFirstSeq: index.firstSeq, indexLength: index.length, devicesFile: devicesFileHash,
            nextSeq: nextSeq, skipped: journalSkipped, devices: devices.map { JournalCheckpoint.Device(key: Self.key(of: $0), device: $0) },
            uninstalled: uninstalled, retiredFCMTokens: retiredFCMTokens.entries, retiredAPNsTokens: retiredAPNsTokens.entries,
            retiredFIDs: retiredFIDs.entries, newest: newest, clockOffset: clock.offsetSeconds,
            lastActive: lastActive.mapValues(Self.milliseconds), activeSince: activeSinceJournaled ? Self.milliseconds(activeSince) : nil)
        let (journal, directory, indexURL) = (journal, dataDirectory, index.url)
        let written = await BlockingExecutor.shared.run("nse.serve.checkpoint") { () -> Bool in
            // The journal and the index first: the checkpoint vouches for what they hold (the journal's lines before
            // `position` may be written and not yet fsync'd: `Journal.append(synced:)`).
            guard journal.sync(), HistoryIndex.sync(indexURL), let tail = journal.fingerprint(before: position) else { return false }
            var checkpoint = snapshot
            checkpoint.journalTail = JournalCheckpoint.hex(tail)
            return checkpoint.writeTemporary(in: directory)
        }
        // In place on this actor, so a clear (which deletes the checkpoint first) comes wholly before or after.
        guard written, epoch == checkpointEpoch else { return }
        JournalCheckpoint.commit(in: directory)
    }

    /// One page of a device's events at journal positions from `from` on, read along its chain in the index instead
    /// of from every journal line: the push and delivery lines of up to `maxPushes` pushes from push `start` (nil: the
    /// newest), in no particular order, and where the next page starts (nil past the oldest). Only lines before
    /// `before` count (nil: `Journal.settledPosition` now, returned for the next pages): the index has every line
    /// before it, and the caller reads the journal from it for the rest.
    func eventLines(deviceKey: String, from: Int64, start: Int?, before: Int64?, maxPushes: Int) -> (lines: [EventLine], next: Int?, before: Int64) {
        let before = before ?? journal.settledPosition
        var lines: [EventLine] = []
        var seq = start ?? newest[deviceKey] ?? 0
        var walked = 0
        while seq > 0, walked < maxPushes {
            // No entry: cleared since the page before.
            guard let entry = index.entry(seq) else { return (lines, nil, before) }
            walked += 1
            if let push = entry.push {
                for (line, isDelivery) in [(push, false), (entry.delivery, true)] {
                    guard let line, line.position >= from, line.position < before else { continue }
                    lines.append(EventLine(
                        position: line.position, length: line.length, push: push.position, pushLength: push.length, isDelivery: isDelivery))
                }
            }
            // A link to itself or a newer push cannot be this server's: the walk stops rather than loop.
            guard entry.previous < seq else { return (lines, nil, before) }
            seq = entry.previous
        }
        return (lines, seq > 0 ? seq : nil, before)
    }

    /// Waits until the device has no pending push, or `limit` passes; true when none is pending.
    func waitUntilSettled(deviceKey: String, limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while pendingCount[deviceKey] != nil {
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
        guard !waiters.isEmpty else { return }
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    var currentGeneration: Int { generation }

    static func object(_ data: Data) -> Any {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) ?? NSNull()
    }

    /// Compact JSON, keys in no particular order: sorting them (Foundation compares with ICU) cost more than the
    /// rest of a push's bookkeeping.
    static func encode(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// The request as the control API shows it: protocol, method, path, headers (name and value pairs, the
    /// credential cut, `cutCredential`), body, and the ID the sender was answered with under `idKey`. Spliced, not serialized:
    /// it is made for every accepted push.
    static func requestRecord(_ request: ServerRequest, idKey: String, id: String) -> Data {
        var record: [UInt8] = []
        record.reserveCapacity(request.body.count + request.headers.reduce(160) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 })
        record.append(contentsOf: #"{"protocol":"#.utf8)
        JSONStringLiteral.append(request.protocolName, to: &record)
        record.append(contentsOf: #","method":"#.utf8)
        JSONStringLiteral.append(request.method, to: &record)
        record.append(contentsOf: #","path":"#.utf8)
        JSONStringLiteral.append(request.path, to: &record)
        record.append(contentsOf: #","headers":["#.utf8)
        for (index, header) in request.headers.enumerated() {
            record.append(contentsOf: index > 0 ? #",["#.utf8 : "[".utf8)
            JSONStringLiteral.append(header.name, to: &record)
            record.append(UInt8(ascii: ","))
            JSONStringLiteral.append(header.name == "authorization" ? Self.cutCredential(header.value) : header.value, to: &record)
            record.append(UInt8(ascii: "]"))
        }
        record.append(contentsOf: #"],"body":"#.utf8)
        JSONStringLiteral.append(String(decoding: request.body, as: UTF8.self), to: &record)
        record.append(UInt8(ascii: ","))
        JSONStringLiteral.append(idKey, to: &record)
        record.append(UInt8(ascii: ":"))
        JSONStringLiteral.append(id, to: &record)
        record.append(UInt8(ascii: "}"))
        return Data(record)
    }

    /// An authorization header without what proves it: the scheme, and of a JWT (a provider token) its header and
    /// claims, which name the signing key and the team (who sent the push), without the signature; any other
    /// credential (an access token) is cut whole.
    static func cutCredential(_ value: String) -> String {
        // A backend sends one credential for many pushes (a provider token lives up to an hour): cut once.
        if let last = lastCut.withLock({ $0 }), last.value == value { return last.cut }
        let cut = cuttingCredential(value)
        lastCut.withLock { $0 = (value, cut) }
        return cut
    }

    private static let lastCut = Mutex<(value: String, cut: String)?>(nil)

    private static func cuttingCredential(_ value: String) -> String {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard let scheme = parts.first else { return "…" }
        guard parts.count == 2 else { return "\(scheme) …" }
        let jwt = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        // `eyJ` is base64url for `{"`: a JWT's header; an access token has another form.
        guard jwt.count == 3, jwt[0].hasPrefix("eyJ"), jwt[1].hasPrefix("eyJ") else { return "\(scheme) …" }
        return "\(scheme) \(jwt[0]).\(jwt[1]).…"
    }
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
        if let apns = device.apns, self.device(apnsToken: apns.token) != nil || isRetired(apnsToken: apns.token) {
            throw DeviceChangeError(status: 409, message: "The APNs token \(apns.token) is already another device's, or was one.")
        }
        if let fcm = device.fcm, self.device(fcmToken: fcm.token) != nil || isRetired(fcmToken: fcm.token) {
            throw DeviceChangeError(status: 409, message: "The FCM token \(fcm.token) is already another device's, or was one.")
        }
        if let fid = device.fcm?.fid, self.device(fid: fid) != nil || retiredFIDs[fid] != nil {
            throw DeviceChangeError(status: 409, message: "The Firebase Installation ID \(fid) is already another device's, or was one.")
        }
        if devices.contains(where: { Self.key(of: $0) == key }) {
            throw DeviceChangeError(status: 409, message: "A device already has the key \(key).")
        }
        try await journalDevice(device, key: key)
        devices.append(device)
        uninstalled[key] = nil
        await markActive(key)
        return device
    }

    /// Replaces the device of `key` with `change(device)`; its tokens stay (a rotation changes the FCM token).
    func update(key: String, _ change: @Sendable (DeviceEntry) throws(DeviceChangeError) -> DeviceEntry) async throws(DeviceChangeError) -> DeviceEntry {
        guard let index = devices.firstIndex(where: { Self.key(of: $0) == key }) else {
            throw DeviceChangeError(status: 404, message: "No device has the token \(key).")
        }
        var changed = try change(devices[index])
        changed.pinnedKey = devices[index].pinnedKey
        if let fid = changed.fcm?.fid, let other = device(fid: fid), Self.key(of: other) != key {
            throw DeviceChangeError(status: 409, message: "The Firebase Installation ID \(fid) is already another device's.")
        }
        try await journalDevice(changed, key: key)
        // The journal write let other calls in: the device is found again by its key.
        if let again = devices.firstIndex(where: { Self.key(of: $0) == key }) { devices[again] = changed }
        await touch(key)
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
        rotated = Self.pinned(rotated, to: key)
        try await journalDevice(rotated, key: key, retiredToken: old)
        if let again = devices.firstIndex(where: { Self.key(of: $0) == key }) { devices[again] = rotated }
        retiredFCMTokens.insert(old, .init(key: key))
        // A new token is a fresh one: its inactivity counts from now.
        await markActive(key)
        return (rotated, old)
    }

    /// A new installation of the app: its tokens, each given by the caller or made up (nil), and what its first
    /// launch left: the user's answer when the app asked for permission, the app's state, the topics its code
    /// subscribed the new FCM token to. `settings` and `appState` nil: what a device entry that does not give them has.
    struct Installation: Sendable {
        var apnsToken: String?
        var fcmToken: String?
        var fid: String?
        var settings: DeviceEntry.Settings?
        var appState: DeviceEntry.AppState?
        var topics: [String] = []
    }

    /// Installs the device's uninstalled app again, as a new installation: a new APNs token, FCM registration token
    /// and Firebase Installation ID for those the device has (the ones `given`, or made up in the services' forms).
    /// The ones replaced keep the answers of the uninstalled app (APNs 410 Unregistered with the uninstall's time,
    /// FCM UNREGISTERED). What belonged to the deleted installation goes with it: the user's notification settings
    /// (asked again: `given.settings`, else a device entry's default, allowed), the app's state (`given.appState`, else
    /// a device entry's default) and the FCM topics (a subscription is the token's: the new one has `given.topics`).
    /// The device keeps its key, so its history stays where it was, and its name, extension and foreground
    /// presentation (the app's code). Returns the device and what it had before (its tokens, and when the app was
    /// uninstalled).
    func reinstall(key: String, given: Installation) async throws(DeviceChangeError) -> (device: DeviceEntry, previous: Installation, uninstalledAt: Int64) {
        guard let index = devices.firstIndex(where: { Self.key(of: $0) == key }) else {
            throw DeviceChangeError(status: 404, message: "No device has the token \(key).")
        }
        guard let uninstalledAt = uninstalled[key] else {
            throw DeviceChangeError(status: 409, message: "The app is installed on the device: uninstall it first (POST /emulator/v1/devices/\(key)/uninstall), as a user deletes an app before installing it again.")
        }
        let current = devices[index]
        let previous = Installation(apnsToken: current.apns?.token, fcmToken: current.fcm?.token, fid: current.fcm?.fid)
        if given.apnsToken != nil, current.apns == nil {
            throw DeviceChangeError(status: 400, message: "The device has no APNs token to replace.")
        }
        if given.fcmToken != nil || given.fid != nil, current.fcm == nil {
            throw DeviceChangeError(status: 400, message: "The device has no FCM token: an FCM token and an installation ID are FCM's.")
        }
        if !given.topics.isEmpty, current.fcm == nil {
            throw DeviceChangeError(status: 400, message: "The device has no FCM token: topics are FCM's.")
        }
        var reinstalled = current
        // The deleted installation's settings and state are gone with it: the new one's are a device entry's unless given.
        let fresh = DeviceEntry(name: current.name, platform: current.platform)
        reinstalled.settings = given.settings ?? fresh.settings
        reinstalled.appState = given.appState ?? fresh.appState
        if current.apns != nil {
            let token = given.apnsToken ?? Self.madeUpAPNsToken()
            guard APNsToken.isWellFormed(token) else {
                throw DeviceChangeError(status: 400, message: "The APNs token \"\(token)\" is not hexadecimal (an even number of 0-9, a-f digits, such as 64).")
            }
            if device(apnsToken: token) != nil || isRetired(apnsToken: token) {
                throw DeviceChangeError(status: 409, message: "The APNs token \(token) is already a device's, or was one.")
            }
            reinstalled.apns?.token = token
        }
        if current.fcm != nil {
            let token = given.fcmToken ?? Self.madeUpFCMToken()
            guard !token.isEmpty, token.utf8.count <= 4096, !token.contains(where: \.isWhitespace) else {
                throw DeviceChangeError(status: 400, message: "An FCM token is 1 to 4096 characters without spaces.")
            }
            if device(fcmToken: token) != nil || isRetired(fcmToken: token) {
                throw DeviceChangeError(status: 409, message: "The FCM token \(token) is already a device's, or was one.")
            }
            reinstalled.fcm?.token = token
            // Subscriptions are the token's: the new one has those its app's first launch made, each once.
            var topics: [String] = []
            for topic in given.topics where !topics.contains(topic) { topics.append(topic) }
            reinstalled.fcm?.topics = topics
            // A new installation has a new installation ID (when the app had one, or one is given).
            if let fid = given.fid ?? (current.fcm?.fid != nil ? Self.madeUpFID() : nil) {
                guard FCMInstallationID.isWellFormed(fid) else {
                    throw DeviceChangeError(status: 400, message: "\"\(fid)\" is not a Firebase Installation ID (\(FCMInstallationID.rule)).")
                }
                if device(fid: fid) != nil || retiredFIDs[fid] != nil {
                    throw DeviceChangeError(status: 409, message: "The Firebase Installation ID \(fid) is already a device's, or was one.")
                }
                reinstalled.fcm?.fid = fid
            }
        }
        do {
            // The rules a device entry meets (topic names and count, among the rest), as a change's are checked.
            try reinstalled.check(place: "The reinstalled device")
        } catch {
            throw DeviceChangeError(status: 400, message: error.description)
        }
        reinstalled = Self.pinned(reinstalled, to: key)
        // The whole device: its new tokens, settings, state and topics, which a restart reads back from this line.
        let encoded = (try? JSONEncoder().encode(reinstalled)) ?? Data()
        var line: [String: Any] = [
            "type": "reinstall", "key": key, "uninstalledAt": uninstalledAt,
            "device": (try? JSONSerialization.jsonObject(with: encoded)) ?? [:],
        ]
        line["retiredAPNsToken"] = previous.apnsToken
        line["retiredFCMToken"] = previous.fcmToken
        line["retiredFID"] = previous.fid == reinstalled.fcm?.fid ? nil : previous.fid
        do {
            try await journal.append(Self.encode(line))
        } catch {
            throw DeviceChangeError(status: 500, message: error.description)
        }
        if let again = devices.firstIndex(where: { Self.key(of: $0) == key }) { devices[again] = reinstalled }
        if let old = previous.apnsToken { retiredAPNsTokens.insert(APNsToken.normalized(old), .init(key: key, uninstalledAt: uninstalledAt)) }
        if let old = previous.fcmToken { retiredFCMTokens.insert(old, .init(key: key)) }
        if let old = previous.fid, old != reinstalled.fcm?.fid { retiredFIDs.insert(old, .init(key: key)) }
        uninstalled[key] = nil
        // New tokens are fresh ones: FCM's inactivity counts from now.
        await markActive(key)
        return (reinstalled, previous, uninstalledAt)
    }

    /// The device kept under `key` whatever its tokens now are: pinned when its own key (from its tokens) is another.
    static func pinned(_ device: DeviceEntry, to key: String) -> DeviceEntry {
        var device = device
        // The key its tokens give, not the one it was pinned to before (a second rotation or reinstall).
        device.pinnedKey = nil
        device.pinnedKey = key == Self.key(of: device) ? nil : key
        return device
    }

    /// The APNs token was a device's until a reinstall replaced it.
    func isRetired(apnsToken: String) -> Bool {
        retiredAPNsTokens[APNsToken.normalized(apnsToken)] != nil
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
        madeUpFID() + ":APA91b" + random(134, of: urlSafeBase64)
    }

    /// An APNs device token as iOS gives one today: 32 random bytes, written as 64 hexadecimal digits.
    static func madeUpAPNsToken() -> String {
        random(64, of: Array("0123456789abcdef"))
    }

    /// A Firebase Installation ID as the SDKs make one (firebase-android-sdk's RandomFidGenerator): 22 characters of
    /// URL-safe base64 whose first 4 bits are 0111, so it starts with c, d, e or f.
    static func madeUpFID() -> String {
        random(1, of: Array("cdef")) + random(21, of: urlSafeBase64)
    }

    private static let urlSafeBase64 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    private static func random(_ count: Int, of alphabet: [Character]) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
