import Foundation
import NSEPush

/// APNs's provider API: `POST /3/device/<token>` (Apple: "Sending notification requests to APNs"). Each refusal
/// is the status and reason APNs gives; an accepted push is journaled, answered 200, then delivered to the phone.
struct APNsEndpoint: Sendable {
    let state: ServeState
    let deliveries: Deliveries
    let acceptAnyToken: Bool
    let providerKeys: [ProviderKey]
    let clock: @Sendable () -> Date
    /// Counts provider token changes per connection (TooManyProviderTokenUpdates); nil: not counted.
    var tokenUpdates: ProviderTokenUpdates?
    /// Provider tokens whose form and signature passed: a backend reuses one token for up to an hour (Apple asks it
    /// to), so its ES256 verification, the dearest check of all, runs once, not at every push.
    /// The `authorization` values whose provider token passed its form and signature checks, with their `iat`.
    let verifiedTokens = VerifiedCredentials<Double>()

    static let pathPrefix = "/3/device/"
    /// Headers a request may carry once only (APNs answers DuplicateHeaders otherwise).
    static let singleHeaders: Set<String> = [
        "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-collapse-id", "apns-push-type",
    ]

    func respond(to request: ServerRequest) async -> ServerResponse {
        // The sender's apns-id when it is a UUID; otherwise (or absent) a new one, as APNs makes.
        let given = request.header("apns-id")
        let apnsID = given.flatMap { UUID(uuidString: $0) != nil ? $0 : nil } ?? ServeIDs.uuidString()
        switch await decide(request, apnsID: apnsID) {
        case .refused(let reason):
            return Self.refusal(reason, apnsID: apnsID)
        case .unregistered(let since):
            return Self.refusal(.unregistered, apnsID: apnsID, timestamp: since)
        case .accepted(let environment):
            var headers = [(name: "apns-id", value: apnsID)]
            // Only the development environment gives the ID the Push Notifications Console's delivery log uses.
            if environment == .development { headers.append((name: "apns-unique-id", value: ServeIDs.uuidString().lowercased())) }
            return ServerResponse(status: 200, headers: headers)
        }
    }

    enum Decision {
        case refused(APNsReason)
        /// The app was uninstalled at this time (milliseconds since 1970).
        case unregistered(Int64)
        case accepted(DeviceEntry.APNsEnvironment)
    }

    /// APNs's checks in order: the request's form, the provider token, the topic and body, the device token,
    /// then the payload's own rules (the checks stage `nse lint` runs); an accepted push is journaled.
    private func decide(_ request: ServerRequest, apnsID: String) async -> Decision {
        guard request.path.hasPrefix(Self.pathPrefix) else { return .refused(.badPath) }
        guard request.method == "POST" else { return .refused(.methodNotAllowed) }
        let token = String(request.path.dropFirst(Self.pathPrefix.count))
        guard !token.isEmpty else { return .refused(.missingDeviceToken) }
        guard !token.utf8.contains(UInt8(ascii: "/")) else { return .refused(.badPath) }
        if Self.repeatsASingleHeader(request.headers) { return .refused(.duplicateHeaders) }
        let topic: String
        let certificateEnvironments: Set<DeviceEntry.APNsEnvironment>?
        switch authorize(request) {
        case .refused(let reason): return .refused(reason)
        case .topic(let authorized, let environments): (topic, certificateEnvironments) = (authorized, environments)
        }
        guard !request.bodyTooLarge else { return .refused(.payloadTooLarge) }
        guard !request.body.isEmpty else { return .refused(.payloadEmpty) }

        let environment = Self.environment(host: request.header("host"))
        guard APNsToken.isWellFormed(token) else { return .refused(.badDeviceToken) }
        let found = await state.deviceAndUninstalled(apnsToken: token)
        var device = found?.device
        // A device `--accept-any-token` makes up is registered once the push is accepted; past the emulator's cap on
        // devices an unknown token stays unknown (BadDeviceToken).
        var madeUp = device == nil && acceptAnyToken
        if madeUp { madeUp = await state.hasRoomForDevice() }
        if madeUp {
            device = Self.defaultIPhone(token: token, topic: topic, environment: environment ?? .development)
        }
        guard var device, let apns = device.apns else { return .refused(.badDeviceToken) }
        // A token of the other environment is unknown to the host the request went to.
        if let environment, environment != apns.environment { return .refused(.badDeviceToken) }
        // On a host of neither environment (127.0.0.1), the device's environment is the one the certificate must be for.
        if let certificateEnvironments, !certificateEnvironments.contains(apns.environment) { return .refused(.badCertificateEnvironment) }
        guard device.isAppTopic(topic) else { return .refused(.deviceTokenNotForTopic) }
        if let since = madeUp ? await state.uninstalledAt(device) : found?.uninstalledAt { return .unregistered(since) }

        let apnsHeaders = Dictionary(
            request.headers.filter { $0.name.hasPrefix("apns-") }.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let push: ReceivedPush
        switch PhonePipeline.apnsPush(headers: apnsHeaders, body: request.body) {
        case .failure(let finding):
            return .refused(APNsReason.refusing(finding.diagnostic.code) ?? .badPayload)
        case .success(let received):
            push = received
        }
        // Checked as the phone's delivery checks it; the delivery then reuses these checks.
        let checked = deliveries.pipeline.check(push, for: device)
        if let refusal = checked.diagnostics.first(where: \.rejectsPush) {
            return .refused(APNsReason.refusing(refusal.code) ?? .badPayload)
        }

        do {
            if madeUp {
                // Another request may have registered the token first: its device is the one pushes go to. nil: the
                // cap was reached meanwhile.
                guard let registered = try await state.register(device) else { return .refused(.badDeviceToken) }
                device = registered
            }
            let record = Self.requestRecord(request, id: apnsID)
            try await deliveries.accept(id: apnsID, service: "apns", device: device, request: record, push: checked, input: "apns:\(apnsID)")
        } catch {
            // Not journaled: the sender must not believe the push accepted.
            return .refused(.internalServerError)
        }
        return .accepted(environment ?? apns.environment)
    }

    /// A header APNs takes once (`singleHeaders`) appears twice or more: one pass over the headers, no list made.
    static func repeatsASingleHeader(_ headers: [(name: String, value: String)]) -> Bool {
        for (index, header) in headers.enumerated() where singleHeaders.contains(header.name) {
            if headers[(index + 1)...].contains(where: { $0.name == header.name }) { return true }
        }
        return false
    }

    /// ProviderToken's checks, the form and signature once per distinct token, the age every time.
    func checkProviderToken(_ authorization: String?) -> APNsReason? {
        let now = clock()
        if let authorization, let issuedAt = verifiedTokens.found(authorization) {
            return now.timeIntervalSince1970 - issuedAt > ProviderToken.maxAge ? .expiredProviderToken : nil
        }
        let reason = ProviderToken.check(authorization, now: now, keys: providerKeys)
        // An expired token passed its form and signature too (`ProviderToken.check` judges its age last): a sender
        // that goes on with it is answered from here, its age judged again each time, without verifying it again.
        if reason == nil || reason == .expiredProviderToken, let authorization {
            let sections = authorization.split(separator: " ", maxSplits: 1).last?.split(separator: ".", omittingEmptySubsequences: false) ?? []
            if sections.count == 3, let issuedAt = (ProviderToken.json(sections[1])?["iat"] as? NSNumber)?.doubleValue {
                verifiedTokens.insert(authorization, issuedAt)
            }
        }
        return reason
    }

    /// The environment a request's host names: Apple's sandbox or production host; nil for any other (localhost),
    /// where each device's own environment applies.
    static func environment(host: String?) -> DeviceEntry.APNsEnvironment? {
        guard let host else { return nil }
        // The name before any port, compared without regard to case and without a lowercased copy: every push asks.
        let name = host.utf8.prefix { $0 != UInt8(ascii: ":") }
        func isNamed(_ known: String) -> Bool {
            name.elementsEqual(known.utf8) { byte, knownByte in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte) == knownByte
            }
        }
        if isNamed("api.sandbox.push.apple.com") || isNamed("api.development.push.apple.com") { return .development }
        if isNamed("api.push.apple.com") { return .production }
        return nil
    }

    /// The iPhone `--accept-any-token` registers for an unknown token: the request's app, default settings.
    static func defaultIPhone(token: String, topic: String, environment: DeviceEntry.APNsEnvironment) -> DeviceEntry {
        let bundleID = Self.bundleID(ofTopic: topic)
        return DeviceEntry(name: "iPhone", platform: .ios, apns: .init(token: token, environment: environment), bundleId: bundleID)
    }

    /// The app's bundle ID in a topic: the topic without a push type's suffix.
    static func bundleID(ofTopic topic: String) -> String {
        for suffix in [".voip", ".complication", ".pushkit.fileprovider", ".push-type.liveactivity", ".push-type.location"] where topic.hasSuffix(suffix) {
            return String(topic.dropLast(suffix.count))
        }
        return topic
    }

    static func refusal(_ reason: APNsReason, apnsID: String, timestamp: Int64? = nil) -> ServerResponse {
        var body: [String: Any] = ["reason": reason.rawValue]
        if let timestamp { body["timestamp"] = timestamp }
        return .json(reason.status, body, headers: [(name: "apns-id", value: apnsID)])
    }

    static func requestRecord(_ request: ServerRequest, id: String) -> Data {
        ServeState.requestRecord(request, idKey: "apnsId", id: id)
    }
}
