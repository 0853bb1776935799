import Foundation
import NSEPush
import NSEReports

/// The code paths `make fuzz` feeds with random bytes, each one entry point shared by the libFuzzer binary
/// (`nse-fuzz`) and the test that replays `Fuzz/regressions/<target>/` in `make test`.
///
/// An entry point runs what a command runs on a file's bytes and checks properties that must hold for every
/// input; a broken property stops the process (`precondition`), which libFuzzer records as a crash.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON parser and `PushReader`: every file every command reads goes through them first.
    case payload
    /// An FCM HTTP v1 message resolved for iOS and Android, with FCM's own validation (`nse resolve`).
    case fcm
    /// `nse lint` and `nse route` on a push, with the text and JSON reports a user reads.
    case lint
    /// How a download gets its name and type: MIME type, Content-Disposition, suggestedFilename, the file
    /// extension Firebase's helper picks, the UTI iOS derives from it, and the format sniffed from the bytes.
    case media

    public func run(_ bytes: Data) {
        switch self {
        case .payload: Self.payload(bytes)
        case .fcm: Self.fcm(bytes)
        case .lint: Self.lint(bytes)
        case .media: Self.media(bytes)
        }
    }

    // MARK: payload

    private static func payload(_ bytes: Data) {
        if let value = try? JSONValue.parse(bytes) {
            // What nse writes back (reports, resolved payloads) must read back as the same value.
            let written = value.compactData()
            guard let reread = try? JSONValue.parse(written) else {
                preconditionFailure("compactData() wrote JSON the parser refuses: \(String(decoding: written, as: UTF8.self))")
            }
            precondition(sameJSON(value, reread), "compactData() changed the value: \(String(decoding: written, as: UTF8.self))")
        }
        // An odd length reads the bytes as a `.apns` file (simctl's), so both kinds are explored from one corpus.
        do {
            let push = try PushReader.parse(bytes, fileExtension: bytes.count % 2 == 0 ? "json" : "apns")
            precondition(push.payloadBytes >= 0, "payloadBytes \(push.payloadBytes)")
        } catch {
            precondition(error.diagnostic.severity == .error && !error.unreadable,
                         "bytes in memory reported as unreadable: \(error.diagnostic)")
        }
    }

    /// Equal as JSON: an integer and a double of the same value are the same number (the encoder writes 1.0 as 1).
    static func sameJSON(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameJSON)
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { sameJSON(value, $0) } ?? false }
        case (.int(let a), .int(let b)): return a == b
        default:
            guard let a = left.doubleValue, let b = right.doubleValue else { return false }
            return a == b
        }
    }

    // MARK: fcm

    private static func fcm(_ bytes: Data) {
        guard let push = try? PushReader.parse(bytes), let message = push.fcmMessage else { return }
        for platform in Platform.allCases {
            let report = FCMResolver.resolve(push, input: "fuzz.json", platform: platform)
            precondition(report.rejected == report.diagnostics.contains { $0.rejectsPush }, "rejected disagrees with the findings")
            precondition((report.ios != nil) == platform.includesIOS && (report.android != nil) == platform.includesAndroid,
                         "a side missing from the \(platform) resolution")
            _ = ResolutionTextRenderer().render(report)
            _ = JSONResultRenderer().encode(report)
        }
        let android = FCMResolver.resolveForAndroid(message)
        _ = MessageKind.ofAndroidMessage(android)
        _ = FCMValidation.validate(message) + FCMValidation.validateForApple(message)
    }

    // MARK: lint

    private static func lint(_ bytes: Data) {
        guard let push = try? PushReader.parse(bytes) else { return }
        let report = Linter.lint(push, input: "fuzz.json")
        precondition(report.rejected == report.diagnostics.contains { $0.rejectsPush }, "rejected disagrees with the findings")
        _ = LintTextRenderer().render(report)
        _ = JSONResultRenderer().encode(report)
        for appState in AppState.allCases {
            let route = DeliveryRoutes.route(push, input: "fuzz.json", appState: appState)
            precondition(route.verdict == report.verdict, "route and lint disagree")
            _ = RouteTextRenderer().render(route)
        }
        // What `nse process` decides before any download: the checks with its options, and the content iOS builds.
        let checks = PushChecks.run(push, options: CheckOptions(changesContent: true, forecastsMedia: false))
        precondition(checks.refused == report.rejected, "process and lint disagree on a refusal")
        let content = NotificationContent(push)
        _ = JSONResultRenderer().encode(content)
        _ = MessageKind.ofIOSPush(push)
    }

    // MARK: media

    /// Input: four lines (image URL, Content-Type, Content-Disposition, type hint), then the file's first bytes.
    private static func media(_ bytes: Data) {
        var fields: [String] = []
        var rest = bytes[...]
        while fields.count < 4 {
            let end = rest.firstIndex(of: 0x0A) ?? rest.endIndex
            fields.append(String(decoding: rest[..<end], as: UTF8.self))
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
        }
        let (urlText, contentType, disposition, typeHint) = (fields[0], fields[1], fields[2], fields[3])

        var diagnostics: [Diagnostic] = []
        let userInfo: [String: JSONValue] = ["fcm_options": .object(["image": .string(urlText)])]
        precondition(ImageRequest.firebase(in: userInfo)?.url == urlText)
        let parsed = FirebaseImageRules.parseURL(urlText, diagnostics: &diagnostics)
        if let parsed {
            precondition(["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), "accepted \(parsed.absoluteString)")
        }
        var headers: [String: String] = [:]
        if !contentType.isEmpty { headers["content-type"] = contentType }
        if !disposition.isEmpty { headers["content-disposition"] = disposition }
        // The URL after redirects: the one given when it parses, else a fixed one so the headers are still named.
        let url = parsed ?? URL(string: urlText) ?? URL(string: "https://cdn.example.com/")!

        for addsMIMEExtension in [true, false] {
            var profile = DeviceProfile()
            profile.suggestedFilenameAddsMIMEExtension = addsMIMEExtension
            if let parsed { _ = FirebaseImageRules.passesTransportSecurity(parsed, profile: profile, diagnostics: &diagnostics) }
            let head = ResponseHead(status: 200, headers: headers, url: url)
            if let name = head.dispositionFilename {
                precondition(!name.isEmpty && !name.contains("/") && !name.contains("\\"), "disposition name \(name)")
            }
            let suggested = head.suggestedFilename(profile: profile)
            precondition(!suggested.isEmpty, "empty suggestedFilename")
            let fileExtension = FirebaseImageRules.fileExtension(for: head, profile: profile)
            precondition(!fileExtension.contains("/"), "file extension \(fileExtension) names a folder")
            let type = AttachmentType(fileExtension: fileExtension)
            if let type { _ = profile.sizeLimit(for: type.category ?? .image) }
        }
        if let hinted = AttachmentType(identifier: typeHint) {
            precondition(hinted.identifier == typeHint, "type hint \(typeHint) gave \(hinted.identifier)")
        }
        let format = MediaFormat.sniff(rest)
        precondition(format == MediaFormat.sniff(Array(rest)), "sniffing depends on the collection type")
        _ = (format.matchingTypeIdentifiers, format.imageMIMETypes, format.conventionalExtension, format.displayName)
    }
}
