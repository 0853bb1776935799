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

    init(devices: [DeviceEntry], dataDirectory: URL) throws(ServeSetupError) {
        self.devices = devices
        self.dataDirectory = dataDirectory
        journal = try Journal(directory: dataDirectory)
    }

    /// A device's stable key in the control API: its APNs token (lowercase), else its FCM token.
    static func key(of device: DeviceEntry) -> String {
        device.apns.map { APNsToken.normalized($0.token) } ?? device.fcm?.token ?? device.name
    }

    func device(apnsToken: String) -> DeviceEntry? {
        let token = APNsToken.normalized(apnsToken)
        return devices.first { $0.apns.map { APNsToken.normalized($0.token) } == token }
    }

    func device(fcmToken: String) -> DeviceEntry? {
        devices.first { $0.fcm?.token == fcmToken }
    }

    func devices(fcmTopic: String, project: String) -> [DeviceEntry] {
        devices.filter { $0.fcm?.project == project && $0.fcm?.topics.contains(fcmTopic) == true }
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

    /// Forgets every push and the devices `--accept-any-token` registered; the devices file's stay.
    func clear(fileDevices: [DeviceEntry]) async throws(ServeSetupError) {
        try await journal.clear()
        records = []
        uninstalled = [:]
        devices = fileDevices
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
                      let device = try? JSONDecoder().decode(DeviceEntry.self, from: data),
                      !devices.contains(where: { Self.key(of: $0) == Self.key(of: device) }) else { continue }
                devices.append(device)
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
