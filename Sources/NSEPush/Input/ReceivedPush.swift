import Foundation

/// The push as the iPhone receives it, whichever kind of file it came from: read once into typed values
/// (`aps`, the image request, the headers, the FCM message) that every command's checks read.
public struct ReceivedPush: Sendable {
    public let kind: InputKind
    /// The `userInfo` dictionary: `aps` plus the custom keys.
    public let userInfo: [String: JSONValue]
    /// The payload's size as APNs counts it: bytes of compact JSON (`CompactJSON.payloadBytes`).
    public let payloadBytes: Int
    /// Findings made while reading or resolving the file (never fatal on their own).
    public var diagnostics: [Diagnostic]
    /// The APNs request headers, when the file gives them: an envelope's `headers` or an FCM message's `apns.headers`.
    public let headers: [String: JSONValue]?
    /// The FCM HTTP v1 message this push was resolved from, kept for FCM's own validation and the Android side.
    public let fcmMessage: FCMMessage?
    /// True when the file was an envelope `{"headers": {...}, "payload": {...}}`, so findings name `payload.aps...`.
    public let isEnvelope: Bool
    /// `aps` as received, with misplaced `aps` keys found beside it.
    public let aps: Aps
    /// The image the payload asks Firebase's helper for, if any.
    public let imageRequest: ImageRequest?
    /// The push type the request declares, when it declares a valid one; for an FCM message with
    /// `apns.live_activity_token`, the Live Activity push FCM sends.
    public let pushType: PushType?

    public init(
        kind: InputKind, userInfo: [String: JSONValue], payloadBytes: Int, diagnostics: [Diagnostic],
        headers: [String: JSONValue]? = nil, fcmMessage: FCMMessage? = nil, isEnvelope: Bool = false
    ) {
        self.kind = kind
        self.userInfo = userInfo
        self.payloadBytes = payloadBytes
        self.diagnostics = diagnostics
        self.headers = headers
        self.fcmMessage = fcmMessage
        self.isEnvelope = isEnvelope
        aps = Aps(userInfo["aps"], besideAps: userInfo)
        imageRequest = ImageRequest.firebase(in: userInfo)
        let declared = headers?.first { $0.key.lowercased() == "apns-push-type" }?.value.stringValue
        if let declared, let type = PushType(rawValue: declared) {
            pushType = type
        } else if let fcmMessage, FCMFieldNames.member("live_activity_token", of: fcmMessage.apns) != nil {
            pushType = .liveactivity
        } else {
            pushType = nil
        }
    }

    /// Where findings about `aps` point: the key path as the sender wrote it.
    var apsPath: String {
        fcmMessage != nil ? "message.apns.payload.aps" : isEnvelope ? "payload.aps" : "aps"
    }
}

/// Why a file could not be turned into a push at all.
public struct InputError: Error, Sendable {
    public var diagnostic: Diagnostic
    /// True when the file itself could not be read (the CLI exits 2), false when it was read but is not a push.
    public var unreadable: Bool
}

/// Reads a file and recognises its kind.
public enum PushReader {
    /// The key `xcrun simctl push` files may carry beside `aps`; the simulator strips it before delivery.
    static let simulatorBundleKey = "Simulator Target Bundle"

    /// The largest input file any command reads: 256 times APNs' 4096-byte limit, room for pretty-printed
    /// samples and FCM messages. A larger file is refused unread, so a stray 2 GB file costs nothing.
    public static let maxInputBytes = 1 << 20

    /// The file name that stands for standard input, as in most command-line tools.
    public static let standardInputName = "-"

    /// Reads `url` and returns the push iOS would receive.
    public static func read(_ url: URL) throws(InputError) -> ReceivedPush {
        try parse(readBounded(url), fileExtension: url.pathExtension.lowercased())
    }

    /// The file's bytes, or a refusal in the user's words: no such file, a folder, a FIFO or device, no
    /// permission, too large. Reads at most `maxInputBytes` + 1 bytes, whatever the file claims.
    static func readBounded(_ url: URL) throws(InputError) -> Data {
        // Named as the user gave it (relative stays relative); opened by its full path. `-` is standard input,
        // which the user redirected on purpose: it is the one stream nse reads to its end.
        let path = url.relativePath
        if path == standardInputName { return try readStandardInput() }
        do throws(RegularFileError) {
            return try RegularFile.read(url.path, limit: maxInputBytes)
        } catch .notRegular(.folder) {
            throw InputError(
                diagnostic: .error(.inputUnreadable, "\(path) is a folder, not a push file. `nse batch \(path)` processes every push file in a folder."),
                unreadable: true)
        } catch .notRegular(let kind) {
            let hint = kind == .fifo ? " To read a pipe, name `-` and redirect it: `- < \(path)`." : ""
            throw InputError(diagnostic: .error(.inputUnreadable, "Cannot read \(path): \(RegularFileError.notRegular(kind).reason(path: path)).\(hint)"), unreadable: true)
        } catch .tooLarge(let size) {
            throw tooLarge(atLeast: size)
        } catch let error {
            throw InputError(diagnostic: .error(.inputUnreadable, "Cannot read \(path): \(error.reason(path: path)). Check the path and its permissions."), unreadable: true)
        }
    }

    private static func readStandardInput() throws(InputError) -> Data {
        do throws(RegularFileError) {
            return try RegularFile.readAll(STDIN_FILENO, limit: maxInputBytes)
        } catch .tooLarge(let size) {
            throw tooLarge(atLeast: size)
        } catch let error {
            throw InputError(diagnostic: .error(.inputUnreadable, "Cannot read standard input: \(error.reason(path: standardInputName))."), unreadable: true)
        }
    }

    private static func tooLarge(atLeast size: Int) -> InputError {
        InputError(
            diagnostic: .error(.payloadTooLarge, "The input is over \(maxInputBytes) bytes (\(size) read). APNs accepts at most 4096 bytes of compact JSON, so this is no push; nse reads no input file over \(maxInputBytes) bytes."),
            unreadable: false)
    }

    /// Parses the bytes of a push file; `fileExtension` ("apns", "json") helps tell simctl files apart.
    public static func parse(_ bytes: Data, fileExtension: String = "json") throws(InputError) -> ReceivedPush {
        guard bytes.count <= maxInputBytes else { throw tooLarge(atLeast: bytes.count) }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw InputError(
                diagnostic: .error(.inputInvalidJSON, "The file is not valid JSON (\(describe(error))). APNs rejects such a payload; fix the syntax."),
                unreadable: false)
        }
        guard case .object(let object) = root else {
            throw InputError(
                diagnostic: .error(.inputUnknownKind, "The file holds \(root.shortDescription), not a JSON object. A push is an object with `aps` (APNs) or `message` (FCM HTTP v1)."),
                unreadable: false)
        }
        // A payload with `aps` and no `message` is no FCM message (`FCMMessage(root:)` says so too), and most pushes
        // are such payloads: the message's fields are not made for them.
        if object["message"] != nil || object["aps"] == nil, let message = FCMMessage(root: object) {
            return FCMResolver.resolveForIOS(message)
        }
        if let envelope = try envelope(object, bytes: bytes) {
            return envelope
        }
        let isSimctl = fileExtension == "apns" || object[simulatorBundleKey] != nil
        guard isSimctl || object["aps"] != nil || looksLikeAPNsPayload(object) else {
            throw InputError(
                diagnostic: .error(.inputUnknownKind, "The object has neither `aps` (an APNs payload), nor `message` or FCM message fields (an FCM HTTP v1 request). Top-level keys: \(object.keys.sorted().joined(separator: ", "))."),
                unreadable: false)
        }
        var userInfo = object
        userInfo[simulatorBundleKey] = nil
        return ReceivedPush(
            kind: isSimctl ? .simctl : .apns,
            userInfo: userInfo,
            payloadBytes: CompactJSON.payloadBytes(of: .object(userInfo), writtenAs: bytes),
            diagnostics: [])
    }

    /// An APNs payload with the headers of its HTTP/2 request: `{"headers": {...}, "payload": {...}}`, nothing else.
    private static func envelope(_ object: [String: JSONValue], bytes: Data) throws(InputError) -> ReceivedPush? {
        guard object["aps"] == nil, object["payload"] != nil, Set(object.keys).isSubset(of: ["headers", "payload"]) else {
            return nil
        }
        guard case .object(let payload)? = object["payload"] else {
            throw InputError(
                diagnostic: .error(.inputUnknownKind, "The envelope's `payload` is \(object["payload"]?.shortDescription ?? "missing"), not a JSON object. An envelope is {\"headers\": {...}, \"payload\": {\"aps\": {...}}}."),
                unreadable: false)
        }
        var headers: [String: JSONValue] = [:]
        switch object["headers"] {
        case nil, .null?:
            break
        case .object(let fields)?:
            headers = fields
        case let other?:
            throw InputError(
                diagnostic: .error(.inputUnknownKind, "The envelope's `headers` is \(other.shortDescription), not a JSON object of header names and values such as {\"apns-push-type\": \"alert\"}."),
                unreadable: false)
        }
        // Measured on the sender's own bytes, as for a bare payload; re-encoding only if the scan fails.
        let size = CompactJSON.payloadBytes(of: .object(payload), writtenAs: CompactJSON.memberRange(of: "payload", in: bytes).map { bytes[$0] })
        return ReceivedPush(
            kind: .apns, userInfo: payload, payloadBytes: size, diagnostics: [], headers: headers, isEnvelope: true)
    }

    /// Keys only Firebase or APNs payloads carry: a file with them but without `aps` is a payload that lost its `aps`.
    private static func looksLikeAPNsPayload(_ object: [String: JSONValue]) -> Bool {
        object.keys.contains { $0 == "fcm_options" || $0.hasPrefix("gcm.") || $0.hasPrefix("google.c.") }
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
