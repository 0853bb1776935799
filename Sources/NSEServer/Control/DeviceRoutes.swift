import Foundation
import NSEMedia

/// The control API's routes that change the emulated phones and the emulator's clock (docs/serve.md, "Changing
/// the devices"): add, change and remove a device, subscribe it to FCM topics, rotate its FCM token, reinstall its
/// app, and set or advance the clock that provider tokens, uninstalls and FCM token expiry read.
extension ControlAPI {
    /// The answer when `parts` (the path after `/emulator/v1/`) is one of these routes; nil otherwise.
    func deviceRoute(_ request: ServerRequest, _ parts: [String]) async -> ServerResponse? {
        let key = parts.count > 1 ? parts[1].removingPercentEncoding ?? parts[1] : ""
        switch (request.method, parts.count, parts.first) {
        case ("POST", 1, "devices"):
            return await addDevice(request)
        case ("PATCH", 2, "devices"):
            return await changeDevice(key: key, request)
        case ("DELETE", 2, "devices"):
            return await answer { () async throws(DeviceChangeError) in try await state.remove(key: try await stableKey(key)) }
        case ("POST", 3, "devices") where parts[2] == "rotate-fcm-token":
            return await rotate(key: key, request)
        case ("POST", 3, "devices") where parts[2] == "reinstall":
            return await reinstall(key: key, request)
        case ("PUT", 4, "devices") where parts[2] == "topics", ("DELETE", 4, "devices") where parts[2] == "topics":
            let topic = parts[3].removingPercentEncoding ?? parts[3]
            let subscribe = request.method == "PUT"
            return await answer { () async throws(DeviceChangeError) in
                try await state.update(key: try await stableKey(key)) { device throws(DeviceChangeError) in
                    guard var fcm = device.fcm else { throw DeviceChangeError(status: 400, message: "The device has no FCM token: topics are FCM's.") }
                    guard FCMTopic.isValid(topic) else {
                        throw DeviceChangeError(status: 400, message: "\"\(topic)\" is not an FCM topic name (\(FCMTopic.rule)).")
                    }
                    if subscribe, !fcm.topics.contains(topic) {
                        guard fcm.topics.count < FCMTopic.maxPerDevice else {
                            throw DeviceChangeError(status: 400, message: "The device is subscribed to \(FCMTopic.maxPerDevice) topics, the most FCM allows an app instance.")
                        }
                        fcm.topics.append(topic)
                    }
                    if !subscribe { fcm.topics.removeAll { $0 == topic } }
                    var changed = device
                    changed.fcm = fcm
                    return changed
                }
            }
        case ("GET", 1, "clock"):
            return clockAnswer()
        case ("POST", 1, "clock"):
            return await setClock(request)
        case ("POST", 1, "client-certificates"):
            return issueClientCertificate(request)
        case (_, 1, "clock"), (_, 1, "client-certificates"), (_, 2, "devices"), (_, 4, "devices"):
            return Self.error(405, "\(request.method) is not allowed on \(request.path).")
        default:
            return nil
        }
    }

    /// The key the device is listed under, from any of its tokens.
    private func stableKey(_ token: String) async throws(DeviceChangeError) -> String {
        guard let device = await state.device(key: token) else { throw DeviceChangeError(status: 404, message: "No device has the token \(token).") }
        return ServeState.key(of: device)
    }

    private func answer(status: Int = 200, _ change: () async throws(DeviceChangeError) -> DeviceEntry) async -> ServerResponse {
        do {
            return .json(status, ["device": Self.describe(try await change())])
        } catch {
            return Self.error(error.status, error.message)
        }
    }

    /// `POST /emulator/v1/devices`: one device as the devices file gives it.
    private func addDevice(_ request: ServerRequest) async -> ServerResponse {
        let device: DeviceEntry
        do {
            device = try JSONDecoder().decode(DeviceEntry.self, from: Data(request.body))
            try device.check(place: "The device")
        } catch let error as ServeSetupError {
            return Self.error(400, error.description)
        } catch let error as DecodingError {
            return Self.error(400, "The device is not as the devices file's entries are (docs/serve.md): \(DevicesFile.describe(error)).")
        } catch {
            return Self.error(400, "The body is not a JSON object: \(error.localizedDescription).")
        }
        return await answer(status: 201) { () async throws(DeviceChangeError) in try await state.add(device) }
    }

    /// The keys a `PATCH` may change: the user's settings, the app's state and code, and the FCM installation ID
    /// (`fcm` with `fid` alone); never the tokens.
    static let changeableKeys: Set<String> = ["name", "settings", "appState", "foregroundPresentation", "extension", "fcm"]
    /// Of `fcm`, a `PATCH` changes the installation ID only: a rotation changes the token, topics their routes.
    static let changeableFCMKeys: Set<String> = ["fid"]

    /// `PATCH /emulator/v1/devices/<token>`: `settings` and `extension` merge key by key; the others replace.
    private func changeDevice(key: String, _ request: ServerRequest) async -> ServerResponse {
        let body = request.body
        guard let changes = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any], !changes.isEmpty else {
            return Self.error(400, #"Expected a JSON object such as {"settings": {"authorization": "denied"}, "appState": "foreground"}."#)
        }
        if let other = changes.keys.sorted().first(where: { !Self.changeableKeys.contains($0) }) {
            return Self.error(400, "`\(other)` cannot be changed: a change gives \(Self.changeableKeys.sorted().joined(separator: ", ")). Rotate an FCM token with POST .../rotate-fcm-token, change topics with PUT or DELETE .../topics/<topic>.")
        }
        if let fcm = changes["fcm"] {
            guard let given = fcm as? [String: Any], !given.isEmpty, given.keys.allSatisfy(Self.changeableFCMKeys.contains) else {
                return Self.error(400, #"`fcm` takes only {"fid": "<the Firebase Installation ID>"} in a change: rotate the token with POST .../rotate-fcm-token, change topics with PUT or DELETE .../topics/<topic>."#)
            }
        }
        return await answer { () async throws(DeviceChangeError) in
            try await state.update(key: try await stableKey(key)) { device throws(DeviceChangeError) in
                let changes = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
                let encoded = (try? JSONEncoder().encode(device)).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
                var merged = encoded
                for (name, value) in changes {
                    if let given = value as? [String: Any], let current = encoded[name] as? [String: Any] {
                        merged[name] = current.merging(given) { $1 }
                    } else {
                        merged[name] = value
                    }
                }
                if changes["fcm"] != nil, device.fcm == nil {
                    throw DeviceChangeError(status: 400, message: "The device has no FCM token: an installation ID is FCM's.")
                }
                do {
                    let data = try JSONSerialization.data(withJSONObject: merged)
                    let changed = try JSONDecoder().decode(DeviceEntry.self, from: data)
                    try changed.check(place: "The device")
                    return changed
                } catch let error as DecodingError {
                    throw DeviceChangeError(status: 400, message: "The change is not as the devices file's entries are (docs/serve.md): \(DevicesFile.describe(error)).")
                } catch let error as ServeSetupError {
                    throw DeviceChangeError(status: 400, message: error.description)
                } catch {
                    throw DeviceChangeError(status: 400, message: "The change cannot be applied: \(error.localizedDescription).")
                }
            }
        }
    }

    /// `POST /emulator/v1/devices/<token>/rotate-fcm-token`, optionally `{"token": "<the new token>"}`.
    private func rotate(key: String, _ request: ServerRequest) async -> ServerResponse {
        var newToken: String?
        if !request.body.isEmpty {
            guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
                  body.keys.allSatisfy({ $0 == "token" }), body["token"] == nil || body["token"] is String else {
                return Self.error(400, #"Expected no body, or {"token": "<the new FCM token>"}."#)
            }
            newToken = body["token"] as? String
        }
        do {
            let rotated = try await state.rotateFCMToken(key: try await stableKey(key), to: newToken)
            return .json(200, ["device": Self.describe(rotated.device), "previousToken": rotated.old, "token": rotated.device.fcm?.token ?? ""])
        } catch {
            return Self.error(error.status, error.message)
        }
    }

    /// `POST /emulator/v1/devices/<token>/reinstall`: the uninstalled app installed again, with new tokens
    /// (`ServeState.reinstall`). The body, optional, is `Reinstall`.
    private func reinstall(key: String, _ request: ServerRequest) async -> ServerResponse {
        var given = ServeState.Installation()
        if !request.body.isEmpty {
            let usage = #"Expected no body, or {"apnsToken": "<64 hexadecimal digits>", "fcmToken": "<an FCM registration token>", "fid": "<a Firebase Installation ID>", "settings": {"authorization": "notDetermined"}, "appState": "background", "topics": ["news"]} (each optional: a token not given is made up; settings and app state not given are a device entry's defaults; no topics, none)."#
            guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
                return Self.error(400, usage)
            }
            if let other = body.keys.sorted().first(where: { !Reinstall.keys.contains($0) }) {
                return Self.error(400, "`\(other)` is not part of a reinstall. \(usage)")
            }
            do {
                let parsed = try JSONDecoder().decode(Reinstall.self, from: Data(request.body))
                given = ServeState.Installation(
                    apnsToken: parsed.apnsToken, fcmToken: parsed.fcmToken, fid: parsed.fid, settings: parsed.settings, appState: parsed.appState,
                    topics: parsed.topics ?? [])
            } catch let error as DecodingError {
                return Self.error(400, "The reinstall is not as docs/serve.md says: \(DevicesFile.describe(error)). \(usage)")
            } catch {
                return Self.error(400, usage)
            }
        }
        do {
            let done = try await state.reinstall(key: try await stableKey(key), given: given)
            var previous: [String: Any] = ["uninstalledAt": done.uninstalledAt]
            previous["apnsToken"] = done.previous.apnsToken
            previous["fcmToken"] = done.previous.fcmToken
            previous["fid"] = done.previous.fid
            return .json(200, ["device": Self.describe(done.device), "previous": previous])
        } catch {
            return Self.error(error.status, error.message)
        }
    }

    /// A reinstall's body: the new installation's tokens (each made up when not given), and what the app's first
    /// launch did: the user's answer when it asked for permission (`settings`, read as the devices file's are), its
    /// state after, and the FCM topics its code subscribed the new token to.
    struct Reinstall: Decodable {
        static let keys: Set<String> = ["apnsToken", "fcmToken", "fid", "settings", "appState", "topics"]

        var apnsToken: String?
        var fcmToken: String?
        var fid: String?
        var settings: DeviceEntry.Settings?
        var appState: DeviceEntry.AppState?
        var topics: [String]?
    }

    /// `POST /emulator/v1/client-certificates {"topic": "<bundle ID>", "environment": "development" | "production"}`:
    /// a client certificate for APNs's certificate-based trust, signed by the local CA, for one environment or
    /// (without `environment`) both, written with its key to `<data>/client-certificates/<topic>[-<environment>].pem`
    /// (what `curl --cert` and Python's `load_cert_chain` read).
    private func issueClientCertificate(_ request: ServerRequest) -> ServerResponse {
        let usage = #"Expected {"topic": "<the app's bundle ID, such as com.example.shop>"}, and optionally "environment": "development" or "production" (without it, both)."#
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
              let topic = body["topic"] as? String, Self.isBundleID(topic), body.keys.allSatisfy({ $0 == "topic" || $0 == "environment" }) else {
            return Self.error(400, usage)
        }
        var environment: DeviceEntry.APNsEnvironment?
        if let given = body["environment"] {
            guard let named = (given as? String).flatMap(DeviceEntry.APNsEnvironment.init(rawValue:)) else { return Self.error(400, usage) }
            environment = named
        }
        do throws(ServeSetupError) {
            let ca = try LocalCA.loadOrCreate(in: state.dataDirectory)
            // Dated on the emulator's clock, which judges it: a test that moved the clock still gets a valid one.
            let issued = try ca.issueClientCertificate(
                topic: topic, environments: environment.map { [$0] } ?? [.development, .production], now: state.clock.now())
            let folder = state.dataDirectory.appendingPathComponent(LocalCA.clientCertificateFolder, isDirectory: true)
            let file = folder.appendingPathComponent(environment.map { "\(topic)-\($0.rawValue).pem" } ?? "\(topic).pem")
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                // PEM blocks each end with a line break, or OpenSSL reads the next block's first line as part of this one.
                let pem = [issued.certificate, issued.key].map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }.joined()
                try AtomicFile.write(Data(pem.utf8), to: file)
            } catch {
                throw ServeSetupError("Cannot write \(file.path): \(error.localizedDescription).")
            }
            var answer: [String: Any] = ["topic": topic, "certificate": issued.certificate, "key": issued.key, "path": file.path, "ca": ca.certificateURL.path]
            answer["environments"] = environment.map { [$0.rawValue] } ?? ["development", "production"]
            return .json(200, answer)
        } catch {
            return Self.error(500, error.description)
        }
    }

    /// A bundle ID: letters, digits, `-` and `.`, as Apple allows them (so it is also a safe file name).
    static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && !text.hasPrefix(".") && text.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45 || byte == 46
        }
    }

    private func clockAnswer() -> ServerResponse {
        let now = state.clock.now()
        return .json(200, ["now": Int64((now.timeIntervalSince1970 * 1000).rounded(.down)), "iso": Self.iso(now)])
    }

    /// `POST /emulator/v1/clock`: `{"now": <milliseconds since 1970>}` sets it, `{"advance": <seconds>}` moves it.
    /// Journaled: a restarted server's clock reads as if it had run on from here.
    private func setClock(_ request: ServerRequest) async -> ServerResponse {
        let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        // 1970 to 9999: a clock a Date can hold and an ISO 8601 string can say.
        let limit = 253_402_300_799_000.0
        do {
            switch (body["now"] as? NSNumber, body["advance"] as? NSNumber, body.count) {
            case (let now?, nil, 1) where now.doubleValue.isFinite && (0...limit).contains(now.doubleValue):
                _ = try await state.changeClock(now: Date(timeIntervalSince1970: now.doubleValue / 1000))
            case (nil, let seconds?, 1) where seconds.doubleValue.isFinite && abs(seconds.doubleValue) <= limit / 1000:
                _ = try await state.changeClock(advance: seconds.doubleValue)
            default:
                return Self.error(400, #"Expected {"now": <milliseconds since 1970>} or {"advance": <seconds, may be negative>}."#)
            }
        } catch {
            return Self.error(500, error.description)
        }
        return clockAnswer()
    }

    private static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
