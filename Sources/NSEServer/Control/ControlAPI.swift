import Foundation

/// The emulator's own API (`/emulator/v1/...`): the devices, what each phone shows, and clearing the state
/// between tests. JSON, documented in docs/serve.md.
struct ControlAPI: Sendable {
    let state: ServeState
    /// The devices file's devices, which a clear keeps.
    let fileDevices: [DeviceEntry]
    /// The server's clock (the emulator's, `state.clock`): an uninstall's time.
    let clock: @Sendable () -> Date
    let faults: Faults
    /// The burst of shared downloads a clear ends; nil: none are shared.
    var downloads: SharedDownloads? = nil

    static let prefix = "/emulator/v1/"
    /// The longest a `?settled=1` request waits for a device's pushes to finish: an extension's own budget is
    /// at most an hour, but a test waits far less; a request that times out answers with what is pending.
    static let settleLimit: Duration = .seconds(60)

    func respond(to request: ServerRequest) async -> ServerResponse {
        let parts = request.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let answer = await deviceRoute(request, parts) { return answer }
        switch (request.method, parts.count, parts.first) {
        case ("GET", 1, "devices"):
            let devices = await state.devices.map(Self.describe)
            return .json(200, ["devices": devices])
        case ("GET", 3, "devices") where parts[2] == "notifications":
            let query = request.queryItems
            guard let limit = query["limit"].map({ Int($0) }) ?? Self.defaultLimit, (1...Self.maxLimit).contains(limit) else {
                return Self.error(400, "limit must be a number from 1 to \(Self.maxLimit).")
            }
            return await notifications(deviceKey: parts[1].removingPercentEncoding ?? parts[1], settle: query["settled"] != nil, limit: limit)
        case ("POST", 3, "devices") where parts[2] == "uninstall":
            let key = parts[1].removingPercentEncoding ?? parts[1]
            guard let device = await state.device(key: key) else { return Self.error(404, "No device has the token \(key).") }
            let now = Int64(clock().timeIntervalSince1970 * 1000)
            do {
                try await state.uninstall(device, at: now)
            } catch {
                return Self.error(500, error.description)
            }
            return .json(200, ["device": Self.describe(device), "uninstalledAt": await state.uninstalledAt(device) ?? now])
        case ("GET", 2, "messages"):
            return await message(id: parts[1].removingPercentEncoding ?? parts[1])
        case ("GET", 1, "events"):
            return await events(request)
        case ("POST", 1, "faults"):
            return await setFault(request)
        case ("DELETE", 1, "faults"):
            faults.clear()
            return ServerResponse(status: 204)
        case ("DELETE", 1, "state"):
            do {
                try await state.clear(fileDevices: fileDevices)
            } catch {
                return Self.error(500, error.description)
            }
            // The next test's pushes download their images afresh.
            downloads?.end()
            return ServerResponse(status: 204)
        case (_, 1, "devices"), (_, 3, "devices"), (_, 1, "state"), (_, 1, "faults"), (_, 1, "events"):
            return Self.error(405, "\(request.method) is not allowed on \(request.path).")
        default:
            return Self.error(404, "No such endpoint: \(request.path). See docs/serve.md for the control API.")
        }
    }

    /// The most notifications one answer lists (`?limit=` asks for fewer or up to this many).
    static let maxLimit = 100_000
    static let defaultLimit = 1000

    private func notifications(deviceKey: String, settle: Bool, limit: Int) async -> ServerResponse {
        guard let device = await state.device(key: deviceKey) else {
            return Self.error(404, "No device has the token \(deviceKey).")
        }
        let key = ServeState.key(of: device)
        if settle { _ = await state.waitUntilSettled(deviceKey: key, limit: Self.settleLimit) }
        let page = await state.notifications(deviceKey: key, from: nil, limit: limit, maxBytes: NotificationsStream.pageBytes)
        let uninstalledAt = await state.uninstalledAt(device)
        var body = Data(#"{"device":"#.utf8)
        body.append(ServeState.encode(Self.describe(device)))
        if let uninstalledAt { body.append(contentsOf: Array(#","uninstalledAt":\#(uninstalledAt)"#.utf8)) }
        body.append(contentsOf: Array(#","notifications":"#.utf8))
        let headers = [(name: "content-type", value: "application/json; charset=UTF-8")]
        guard let next = page.next, page.records.count < limit else {
            body.append(Self.list(page.records))
            body.append(contentsOf: Array("}".utf8))
            return ServerResponse(status: 200, headers: headers, body: Array(body))
        }
        // More than a page: the list is left open, and the rest is read and sent a page at a time.
        body.append(Self.list(page.records, closed: false))
        var response = ServerResponse(status: 200, headers: headers)
        response.stream = NotificationsStream(
            state: state, deviceKey: key, opening: Array(body), listed: page.records.count, next: next, remaining: limit - page.records.count)
        return response
    }

    /// `GET /emulator/v1/events[?device=<token>]`: server-sent events (`EventsStream`); `Last-Event-ID` resumes.
    private func events(_ request: ServerRequest) async -> ServerResponse {
        var key: String?
        if let token = request.queryItems["device"] {
            guard let device = await state.device(key: token) else { return Self.error(404, "No device has the token \(token).") }
            key = ServeState.key(of: device)
        }
        var lastEventID: Int64?
        if let given = request.header("last-event-id") {
            guard let id = Int64(given.trimmingCharacters(in: .whitespaces)), id >= 0 else {
                return Self.error(400, "Last-Event-ID must be the id of an event this server sent (a number).")
            }
            lastEventID = id
        }
        var response = ServerResponse(status: 200, headers: [
            (name: "content-type", value: "text/event-stream; charset=utf-8"), (name: "cache-control", value: "no-store"),
        ])
        response.stream = EventsStream(state: state, device: key, lastEventID: lastEventID)
        return response
    }

    /// `GET /emulator/v1/messages/<id>`: the notifications an apns-id or FCM message name carried (one per device).
    private func message(id: String) async -> ServerResponse {
        let records = await state.notifications(id: id)
        guard !records.isEmpty else { return Self.error(404, "No accepted push has the apns-id or message name \(id).") }
        var body = Data(#"{"notifications":"#.utf8)
        body.append(Self.list(records))
        body.append(contentsOf: Array("}".utf8))
        return ServerResponse(status: 200, headers: [(name: "content-type", value: "application/json; charset=UTF-8")], body: Array(body))
    }

    /// The records as a JSON array, spliced from their stored JSON: thousands cost no decoding and re-encoding.
    static func list<Records: Sequence<NotificationRecord>>(_ records: Records, closed: Bool = true) -> Data {
        var body = Data("[".utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { body.append(contentsOf: Array(",".utf8)) }
            body.append(record.json())
        }
        if closed { body.append(contentsOf: Array("]".utf8)) }
        return body
    }

    /// `POST /emulator/v1/faults {"service": "apns"|"fcm", "status": 429|500|503 (or 401 for fcm), "count": N |
    /// "percent": P, "seed": S, "retryAfter": S}`.
    private func setFault(_ request: ServerRequest) async -> ServerResponse {
        let usage = #"Expected {"service": "apns" or "fcm", "status": 429, 500 or 503 (or 401 for fcm), and either "count": 1 to 1000000 or "percent": 1 to 100 with an optional "seed" (0 to 2^53), "retryAfter": seconds (optional)}."#
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
              let service = (body["service"] as? String).flatMap(Faults.Service.init(rawValue:)),
              let status = Self.integer(body["status"]), Faults.offers(status, for: service) else {
            return Self.error(400, usage)
        }
        let selection: Faults.Plan.Selection
        var answer: [String: Any] = ["service": service.rawValue, "status": status]
        switch (body["count"], body["percent"]) {
        case (let count?, nil):
            guard let count = Self.integer(count), (1...1_000_000).contains(count), body["seed"] == nil else { return Self.error(400, usage) }
            selection = .next(remaining: count)
            answer["count"] = count
        case (nil, let percent?):
            guard let percent = Self.integer(percent), (1...100).contains(percent) else { return Self.error(400, usage) }
            let seed: UInt64
            if let given = body["seed"] {
                guard let value = Self.integer(given), (0...(1 << 53)).contains(value) else { return Self.error(400, usage) }
                seed = UInt64(value)
            } else {
                // Said in the answer, so a run that fails can be repeated with the same places.
                seed = UInt64.random(in: 0...(1 << 53))
            }
            selection = .share(ShareDraw(percent: percent, seed: seed))
            answer["percent"] = percent
            answer["seed"] = Int(seed)
        default:
            return Self.error(400, usage)
        }
        let retryAfter = body["retryAfter"].map(Self.integer)
        if let retryAfter {
            guard let seconds = retryAfter, (0...86400).contains(seconds) else { return Self.error(400, "retryAfter must be between 0 and 86400 seconds.") }
        }
        faults.set(Faults.Plan(status: status, retryAfter: retryAfter ?? nil, selection: selection), for: service)
        return .json(200, answer)
    }

    /// A JSON number that is a whole number (NSNumber bridges to Int only when exact).
    static func integer(_ value: Any?) -> Int? {
        value as? Int
    }

    static func describe(_ device: DeviceEntry) -> [String: Any] {
        let encoded = (try? JSONEncoder().encode(device)).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
        var described = encoded
        described["key"] = ServeState.key(of: device)
        return described
    }

    static func error(_ status: Int, _ message: String) -> ServerResponse {
        .json(status, ["error": message])
    }
}
