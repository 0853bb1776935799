import Foundation
import NSEPush

/// FCM HTTP v1: `POST /v1/projects/<project>/messages:send` (Firebase: projects.messages.send reference, "FCM error
/// codes") and the OAuth token endpoint Google's auth libraries call (`token_uri` of a service-account JSON).
struct FCMEndpoint: Sendable {
    let state: ServeState
    let deliveries: Deliveries
    let tokens: AccessTokens

    static let projectsPrefix = "/v1/projects/"
    static let sendSuffix = "/messages:send"
    static let tokenPath = "/token"

    static func handles(_ path: String) -> Bool {
        path == tokenPath || path.hasPrefix(projectsPrefix)
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        if request.path == Self.tokenPath { return token(request) }
        guard request.path.hasSuffix(Self.sendSuffix) else {
            return FCMError.notFound(path: request.path)
        }
        let project = String(request.path.dropFirst(Self.projectsPrefix.count).dropLast(Self.sendSuffix.count))
        guard !project.isEmpty, !project.utf8.contains(UInt8(ascii: "/")) else { return FCMError.notFound(path: request.path) }
        guard request.method == "POST" else { return FCMError.notFound(path: request.path) }
        guard let bearer = Self.bearer(request.header("authorization")), tokens.isValid(bearer) else {
            return FCMError.unauthenticated()
        }
        return await send(request, project: project)
    }

    private func send(_ request: ServerRequest, project: String) async -> ServerResponse {
        guard !request.bodyTooLarge else {
            return FCMError.invalidArgument("Request payload size exceeds the limit: \(HTTPServer.maxBodyBytes) bytes.", violations: [])
        }
        // The usual request, `{"message": {...}}` with `validate_only` absent or a boolean, is read once; any other
        // body is read again below for the answer FCM gives it.
        if case .success(let push) = PhonePipeline.fcmPush(body: request.body), let message = push.fcmMessage, message.isWrapped {
            switch message.requestFields["validate_only"] ?? message.requestFields["validateOnly"] {
            case nil: return await send(request, push: push, message: message, project: project, validateOnly: false)
            case .bool(let validateOnly)?: return await send(request, push: push, message: message, project: project, validateOnly: validateOnly)
            default: break
            }
        }
        guard let root = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return FCMError.invalidArgument("Invalid JSON payload received. The body is not a JSON object.", violations: [])
        }
        guard root["message"] is [String: Any] else {
            return FCMError.invalidArgument("Request contains an invalid argument.", violations: [("message", "The send request has no `message` object.")])
        }
        let validateOnly = (root["validate_only"] ?? root["validateOnly"]) as? Bool ?? false
        let push: ReceivedPush
        switch PhonePipeline.fcmPush(body: request.body) {
        case .failure(let error):
            return FCMError.invalidArgument("Request contains an invalid argument.", violations: [FCMError.violation(error.diagnostic)])
        case .success(let read):
            push = read
        }
        guard let message = push.fcmMessage else {
            return FCMError.invalidArgument("Request contains an invalid argument.", violations: [("message", "Not an FCM HTTP v1 message.")])
        }
        return await send(request, push: push, message: message, project: project, validateOnly: validateOnly)
    }

    /// Sends a message read: its targets, FCM's and Apple's refusals, then each target's delivery.
    private func send(_ request: ServerRequest, push: ReceivedPush, message: FCMMessage, project: String, validateOnly: Bool) async -> ServerResponse {
        // The targets: one registration token's or installation's device, or every device the topic or condition
        // reaches.
        var targets: [DeviceEntry] = []
        var isTopicMessage = false
        if case .string(let fid)? = message.fields["fid"] {
            // An unknown FID is answered as an unknown token is, naming `message.fid` (docs/serve.md: Firebase
            // documents no separate answer for it).
            guard let found = await state.deviceAndUnregistered(fid: fid) else {
                return FCMError.invalidArgument(
                    "The installation ID is not a valid FCM installation ID",
                    violations: [("message.fid", "The installation ID is not a valid FCM installation ID")])
            }
            guard found.device.fcm?.project == project else { return FCMError.senderIDMismatch() }
            if found.unregistered { return await unregistered(found.device, validateOnly: validateOnly) }
            targets = [found.device]
        } else if case .string(let token)? = message.fields["token"] {
            guard let found = await state.deviceAndUnregistered(fcmToken: token) else {
                // A token a rotation replaced is FCM's UNREGISTERED, not an unknown one.
                if await state.isRetired(fcmToken: token) { return FCMError.unregistered() }
                return FCMError.invalidArgument(
                    "The registration token is not a valid FCM registration token",
                    violations: [("message.token", "The registration token is not a valid FCM registration token")])
            }
            let device = found.device
            guard device.fcm?.project == project else { return FCMError.senderIDMismatch() }
            // Uninstalled, or expired after inactivity; validate_only reports it too (firebase-admin-python's
            // integration tests).
            if found.unregistered { return await unregistered(device, validateOnly: validateOnly) }
            targets = [device]
        } else {
            switch FCMAudience.of(message) {
            case nil:
                break
            case .failure(let violation):
                return FCMError.invalidArgument("Request contains an invalid argument.", violations: [(violation.field, violation.description)])
            case .success(let audience):
                targets = await state.devices(project: project, audience: audience.matches)
                isTopicMessage = true
            }
        }

        // FCM's own checks for every message; Apple's too when an iPhone is among the targets (the existing
        // checks stage, as `nse lint` runs it): FCM refuses a message either would refuse. The first target of each
        // platform checks the push as its delivery will, and its delivery reuses those checks; a topic's other
        // devices check it as each is journaled (`accept(targets:)`: a fan-out to thousands keeps one push, not
        // thousands of checked ones); a platform no target has (a topic nobody subscribes to yet) is checked alone.
        var checked = Array(repeating: PhonePipeline.CheckedPush(push: push, diagnostics: [], readAhead: nil), count: targets.count)
        let platforms: [DeviceEntry.DevicePlatform] = targets.contains { $0.platform == .ios } || targets.isEmpty && message.fields["token"] == nil && message.fields["fid"] == nil ? [.android, .ios] : [.android]
        for platform in platforms {
            let findings: [Diagnostic]
            if let first = targets.firstIndex(where: { $0.platform == platform }) {
                checked[first] = deliveries.pipeline.check(push, for: targets[first])
                findings = checked[first].diagnostics
            } else {
                findings = PhonePipeline.check(push, platform: platform)
            }
            let refusals = findings.filter(\.rejectsPush)
            // A message to one iPhone that FCM itself lets through goes on to APNs while the sender waits, and what
            // APNs refuses comes back with its status and reason (docs/serve.md, "APNs's refusals of an FCM message").
            if platform == .ios, !validateOnly, !isTopicMessage, let iPhone = targets.first(where: { $0.platform == .ios }),
               let reason = Self.apnsRefusal(refusals, headers: push.headers, device: iPhone) {
                return FCMError.apnsRefusal(reason, violations: refusals.map(FCMError.violation))
            }
            if !refusals.isEmpty {
                return FCMError.invalidArgument("Request contains an invalid argument.", violations: refusals.map(FCMError.violation))
            }
        }

        let name = "projects/\(project)/messages/\(isTopicMessage ? FCMAudience.messageID() : Self.messageID())"
        guard !validateOnly else { return Self.sent(name) }
        let record = Self.requestRecord(request, name: name)
        do {
            try await accept(targets: zip(targets, checked), name: name, record: record)
        } catch {
            return FCMError.internalError()
        }
        return Self.sent(name)
    }

    /// How many of a message's devices are journaled at once: a topic's thousand devices share a few fsyncs (the
    /// journal writes what arrives together in one), instead of one each in turn (0.06 s for a thousand iPhones instead of 0.27).
    static let fanOutWidth = 64

    /// Journals and delivers the message to each target device, `fanOutWidth` at a time.
    private func accept(targets: Zip2Sequence<[DeviceEntry], [PhonePipeline.CheckedPush]>, name: String, record: Data) async throws {
        var one = targets.makeIterator()
        if let (device, push) = one.next(), one.next() == nil {
            // A message to one device (a token or an FID), the usual send: no child task.
            return try await deliveries.accept(id: name, service: "fcm", device: device, request: record, push: push, input: "fcm:\(name)")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for (device, push) in targets {
                if running == Self.fanOutWidth {
                    try await group.next()
                    running -= 1
                }
                // An iPhone gets the APNs payload FCM builds; an Android phone the message itself. Checked now if it was
                // not (a topic's devices past the first of each platform), so that one that waits on nothing is
                // delivered before the answer too.
                group.addTask {
                    let checked = push.readAhead == nil ? deliveries.pipeline.check(push.push, for: device) : push
                    try await deliveries.accept(id: name, service: "fcm", device: device, request: record, push: checked, input: "fcm:\(name)")
                }
                running += 1
            }
            try await group.waitForAll()
        }
    }

    /// FCM's UNREGISTERED for a device it no longer reaches. An iPhone whose app was uninstalled is one APNs refuses
    /// (410 Unregistered), and FCM, forwarding the message, hands that back in an ApnsError (an answer captured in
    /// codedge-llc/pigeon's tests); a token FCM expired itself, or a `validate_only` message, never reaches APNs.
    private func unregistered(_ device: DeviceEntry, validateOnly: Bool) async -> ServerResponse {
        guard device.platform == .ios, !validateOnly, await state.uninstalledAt(device) != nil else { return FCMError.unregistered() }
        return FCMError.apnsRefusal(.unregistered, violations: [])
    }

    /// What APNs answers the request FCM makes for one iPhone, given the findings that refuse the message: nil when
    /// FCM refuses it first (a finding of FCM's own) or APNs takes it. The APNs endpoint's rules, in its order: the
    /// topic (FCM sends the app's bundle ID unless `apns.headers` names another), then each finding's reason
    /// (`APNsReason.refusing`). Its BadPayload is not Apple's and FCM builds the payload itself: such a finding is
    /// FCM's refusal.
    static func apnsRefusal(_ refusals: [Diagnostic], headers: [String: JSONValue]?, device: DeviceEntry) -> APNsReason? {
        let reasons = refusals.map { APNsReason.refusing($0.code).flatMap { $0 == .badPayload ? nil : $0 } }
        guard !reasons.contains(where: { $0 == nil }) else { return nil }
        if device.bundleId != nil, let topic = headers?.first(where: { $0.key.lowercased() == "apns-topic" })?.value.stringValue,
           !device.isAppTopic(topic) {
            return .deviceTokenNotForTopic
        }
        return reasons.first ?? nil
    }

    /// FCM's answer to a message sent: `{"name": "projects/<project>/messages/<id>"}`, written by hand (the same bytes
    /// as `ServerResponse.json`, JSONStringLiteral) as it is made for every push.
    static func sent(_ name: String) -> ServerResponse {
        var body = Array(#"{"name":"#.utf8)
        JSONStringLiteral.append(name, to: &body)
        body.append(UInt8(ascii: "}"))
        return ServerResponse(status: 200, headers: [(name: "content-type", value: "application/json; charset=UTF-8")], body: body)
    }

    /// `POST /token`: the OAuth 2 JWT-bearer grant (RFC 7523) that Google's auth libraries make with a service
    /// account's key. The assertion's form is checked, its signature is not (docs/serve.md).
    private func token(_ request: ServerRequest) -> ServerResponse {
        guard request.method == "POST" else {
            return .json(405, ["error": "invalid_request", "error_description": "Use POST."])
        }
        var form = ServerRequest(protocolName: "", method: "", target: "/?" + String(decoding: request.body, as: UTF8.self), headers: [], body: [])
        form.body = []
        let fields = form.queryItems
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return .json(400, ["error": "unsupported_grant_type", "error_description": "Invalid grant_type: \(fields["grant_type"] ?? "")"])
        }
        let sections = (fields["assertion"] ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard sections.count == 3, let claims = ProviderToken.json(sections[1]), claims["iss"] is String else {
            return .json(400, ["error": "invalid_grant", "error_description": "Invalid JWT: the assertion is not a signed JWT with an `iss` claim."])
        }
        return .json(200, ["access_token": tokens.issue(), "expires_in": AccessTokens.lifetimeSeconds, "token_type": "Bearer"])
    }

    static func bearer(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }

    /// A message ID in the form FCM's have: `0:<microseconds>%<16 hex digits>`.
    static func messageID() -> String {
        let micros = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return "0:\(micros)%\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }

    static func requestRecord(_ request: ServerRequest, name: String) -> Data {
        ServeState.requestRecord(request, idKey: "name", id: name)
    }
}

/// FCM's errors: a google.rpc.Status with the FcmError detail the Admin SDKs branch on, an ApnsError when APNs
/// refused what FCM forwarded, and for a bad field a google.rpc.BadRequest naming it (Firebase: "FCM error codes",
/// the ApnsError reference; firebase-admin-python's messaging.py).
enum FCMError {
    static func body(
        _ status: Int, _ code: String, _ message: String, errorCode: String?, apns: APNsReason? = nil, violations: [(String, String)]
    ) -> ServerResponse {
        var details: [[String: Any]] = []
        if let errorCode {
            details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode])
        }
        if let apns {
            // Firebase's ApnsError reference names the fields status_code and reason; JSON carries them in lowerCamelCase,
            // as it does FcmError's error_code.
            details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.ApnsError", "statusCode": apns.status, "reason": apns.rawValue])
        }
        if !violations.isEmpty {
            details.append([
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": violations.map { ["field": $0.0, "description": $0.1] },
            ])
        }
        var error: [String: Any] = ["code": status, "message": message, "status": code]
        if !details.isEmpty { error["details"] = details }
        return .json(status, ["error": error])
    }

    static func invalidArgument(_ message: String, violations: [(String, String)]) -> ServerResponse {
        body(400, "INVALID_ARGUMENT", message, errorCode: "INVALID_ARGUMENT", violations: violations)
    }

    static func unauthenticated() -> ServerResponse {
        body(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", errorCode: nil, violations: [])
    }

    static func senderIDMismatch() -> ServerResponse {
        body(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH", violations: [])
    }

    static func unregistered() -> ServerResponse {
        body(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED", violations: [])
    }

    /// APNs refused the message FCM forwarded: the FcmError for APNs's status, and APNs's status and reason in an
    /// ApnsError detail (Firebase: ApnsError, ErrorCode). A 403 (APNs refused the project's key or certificate) is
    /// 401 THIRD_PARTY_AUTH_ERROR and a 410 404 UNREGISTERED, as captured answers show them
    /// (cheddar-me/firebase-admin-sdk-ruby's and codedge-llc/pigeon's tests); a header or payload APNs refuses (400,
    /// 413) is 400 INVALID_ARGUMENT, an assumption (docs/serve.md).
    static func apnsRefusal(_ reason: APNsReason, violations: [(String, String)]) -> ServerResponse {
        switch reason.status {
        case 403:
            body(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", errorCode: "THIRD_PARTY_AUTH_ERROR", apns: reason, violations: violations)
        case 410:
            body(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED", apns: reason, violations: violations)
        default:
            body(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", errorCode: "INVALID_ARGUMENT", apns: reason, violations: violations)
        }
    }

    static func internalError() -> ServerResponse {
        body(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL", violations: [])
    }

    /// Google's answer to a path it does not serve.
    static func notFound(path: String) -> ServerResponse {
        body(404, "NOT_FOUND", "The requested URL \(path) was not found on this server.", errorCode: nil, violations: [])
    }

    /// The field a finding names (its first `message...` key path in backquotes) and its text.
    static func violation(_ finding: Diagnostic) -> (String, String) {
        let pieces = finding.message.split(separator: "`", omittingEmptySubsequences: false)
        let field = stride(from: 1, to: pieces.count, by: 2).map { String(pieces[$0]) }.first { $0.hasPrefix("message") } ?? "message"
        return (field, "\(finding.code.rawValue): \(finding.message)")
    }
}
