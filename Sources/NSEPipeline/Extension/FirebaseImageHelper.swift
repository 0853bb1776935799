import Foundation
import NSEConcurrency
import NSEMedia
import NSEPush

/// Firebase's `Messaging.serviceExtension().populateNotificationContent(_:withContentHandler:)`:
/// downloads `fcm_options.image` and attaches it, replacing any attachments (firebase/firebase-ios-sdk,
/// `FirebaseMessaging/Sources/FIRMessagingExtensionHelper.m`).
///
/// Every path where the SDK logs and delivers the content without an image becomes a diagnostic here.
/// The `FirebaseMessaging` module calls it from `populateNotificationContent`.
public struct FirebaseImageHelper: Sendable {
    public init() {}

    /// What the helper did: the state with its findings and attachment, and whether time ran out first (the
    /// SDK's download task is then still waiting, so the handler is not called).
    public struct Outcome: Sendable {
        public var state: ExtensionState
        public var timedOut: Bool
    }

    /// What the helper makes of a push's image request before any download: the URL it downloads, or nil with the
    /// reason in `findings`. Made once per push (`decide`), in the built-in extension's plan.
    package struct Decision: Sendable {
        /// The sender asked for an image, so a missing one is a failure even when the helper ignores the request.
        package var requested: Bool
        package var url: URL?
        package var findings: [Diagnostic]
    }

    /// The one reading of `request`'s URL: parsed as iOS parses it, then App Transport Security.
    package static func decide(_ request: ImageRequest?, profile: DeviceProfile) -> Decision {
        var findings: [Diagnostic] = []
        let url = imageURL(request, profile: profile, diagnostics: &findings)
        return Decision(requested: request != nil, url: url, findings: findings)
    }

    /// Adds the image `request` asks for to the state's best-attempt content, then calls `completion`: at once
    /// when nothing is to be downloaded, else on an executor thread ("nse.firebase", as the SDK's session queue) after the download,
    /// which holds no thread while it runs.
    public func run(_ request: ImageRequest?, state: ExtensionState, context: ExtensionContext, completion: @escaping @Sendable (Outcome) -> Void) {
        run(Self.decide(request, profile: context.profile), state: state, context: context, completion: completion)
    }

    /// The same, for a request already decided (the plan's).
    package func run(_ decision: Decision, state: ExtensionState, context: ExtensionContext, completion: @escaping @Sendable (Outcome) -> Void) {
        var state = state
        if decision.requested { state.mediaRequested = true }
        state.diagnostics += decision.findings
        guard let url = decision.url else {
            return completion(Outcome(state: state, timedOut: false))
        }
        let download = context.workDirectory.appending(path: "download")
        let clock = context.clock
        let downloadStarted = clock.now
        let before = state
        context.fetcher.fetch(url, to: download, deadline: context.deadline, sizeLimit: Self.sizeLimit(profile: context.profile)) { result in
            // A download a batch started ahead of this push took as long as its transfer, not this push's wait.
            let elapsed = (try? result.get())?.transferDuration?.milliseconds ?? downloadStarted.duration(to: clock.now).milliseconds
            BlockingExecutor.shared.execute("nse.firebase") {
                var state = before
                state.timings["download"] = elapsed
                let timedOut = Self.finish(result, url: url, state: &state, context: context)
                completion(Outcome(state: state, timedOut: timedOut))
            }
        }
    }

    /// What the helper downloads for `request`, before it runs: a batch starts it for pushes still queued.
    public static func plannedDownload(_ request: ImageRequest?, profile: DeviceProfile) -> PlannedDownload? {
        plannedDownload(decide(request, profile: profile), profile: profile)
    }

    /// The same, for a request already decided.
    package static func plannedDownload(_ decision: Decision, profile: DeviceProfile) -> PlannedDownload? {
        decision.url.map { PlannedDownload(url: $0, sizeLimit: sizeLimit(profile: profile)) }
    }

    /// The URL to download, or nil (with the reason in `diagnostics`) when the helper downloads nothing.
    private static func imageURL(_ request: ImageRequest?, profile: DeviceProfile, diagnostics: inout [Diagnostic]) -> URL? {
        guard let request else {
            diagnostics.append(.info(.mediaNone, "No `fcm_options.image` in the payload: Firebase's helper delivers the content without downloading anything."))
            return nil
        }
        guard let imageURLText = request.url else {
            // The checks stage reports why (`lint.image.type`); the SDK itself stays silent.
            diagnostics.append(.info(.mediaNone, "Firebase's helper ignores `\(request.source)` (not a string URL) and downloads nothing."))
            return nil
        }
        guard let url = FirebaseImageRules.parseURL(imageURLText, diagnostics: &diagnostics) else { return nil }
        guard FirebaseImageRules.passesTransportSecurity(url, profile: profile, diagnostics: &diagnostics) else { return nil }
        return url
    }

    /// The most bytes the helper takes: iOS's limit for the attachment type its file name will give.
    private static func sizeLimit(profile: DeviceProfile) -> @Sendable (ResponseHead) -> Int {
        { head in
            let type = AttachmentType(fileExtension: FirebaseImageRules.fileExtension(for: head, profile: profile))
            return profile.acceptedSizeLimit(for: type?.category ?? .image)
        }
    }

    /// Judges the finished download and attaches it; true when the time budget ran out first.
    private static func finish(_ result: Result<FetchedMedia, MediaFetchError>, url: URL, state: inout ExtensionState, context: ExtensionContext) -> Bool {
        let fetched: FetchedMedia
        switch result {
        case .success(let media):
            fetched = media
        case .failure(let error):
            state.diagnostics.append(diagnose(error, url: url, profile: context.profile))
            if case .timeout = error { return true }
            return false
        }
        guard (200..<300).contains(fetched.head.status) else {
            state.diagnostics.append(.error(
                .mediaHTTPStatus,
                "The image server answered HTTP \(fetched.head.status) for \(fetched.head.url.absoluteString). Firebase's helper does not check the status: it saves the error body as the attachment and iOS drops it, so the notification shows without the image. Fix the URL or the server."))
            return false
        }
        attach(fetched, to: &state, context: context)
        return false
    }

    private static func attach(_ fetched: FetchedMedia, to state: inout ExtensionState, context: ExtensionContext) {
        let profile = context.profile
        let format = MediaFormat.sniff(fetched.prefix)
        let suggestedName = fetched.head.suggestedFilename(profile: profile)
        let fileExtension = FirebaseImageRules.fileExtension(for: fetched.head, profile: profile)
        let named = context.workDirectory.appending(path: "attachment" + (fileExtension.isEmpty ? "" : "." + fileExtension))
        do {
            // link(2) then unlink(2): a move that, like FileManager's (and the helper's own call), never replaces a
            // file already there, without FileManager's checks around it; anything unusual goes to FileManager.
            if link(fetched.file.path, named.path) == 0 {
                unlink(fetched.file.path)
            } else {
                try FileManager.default.moveItem(at: fetched.file, to: named)
            }
        } catch {
            state.diagnostics.append(.error(.mediaNotSaved, "Could not rename the download to \(named.lastPathComponent): \(error.localizedDescription). Firebase's helper logs error 20002 here and shows no image."))
            return
        }
        let served = "served as \(fetched.head.mimeType ?? "no Content-Type"), suggestedFilename \"\(suggestedName)\""
        do {
            // Firebase passes "" and the system assigns a UUID; deriving it from the bytes keeps reports reproducible.
            var (attachment, type) = try AttachmentCreation.create(
                identifier: Self.systemIdentifier(for: fetched.sha256), file: named, profile: profile)
            attachment.sha256 = fetched.sha256
            if let category = type.category, let warning = profile.sizeAssumption(bytes: attachment.bytes, category: category) {
                state.diagnostics.append(warning)
            }
            state.bestAttemptContent.attachments = [attachment]
            state.stagedAttachments = [StagedAttachment(
                attachment: attachment, localFile: named, attachmentType: type, format: format,
                mimeType: fetched.head.mimeType)]
        } catch {
            state.diagnostics.append(Self.diagnose(error, served: served, format: format))
        }
    }

    /// A UUID-shaped identifier made from the file's digest.
    static func systemIdentifier(for sha256: String) -> String {
        let hex = Array(sha256.uppercased().prefix(32))
        guard hex.count == 32 else { return UUID().uuidString }
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
        return groups.joined(separator: "-")
    }

    private static func diagnose(_ error: AttachmentCreationError, served: String, format: MediaFormat) -> Diagnostic {
        let rename = format.conventionalExtension.map { " The bytes are \(format.displayName): end the URL path in .\($0) or serve it with Content-Type image/\($0 == "jpg" ? "jpeg" : $0)." } ?? ""
        switch error {
        case .invalidURL:
            return .error(.mediaNotSaved, "The downloaded file vanished before the attachment was created (UNError 100). Firebase's helper logs error 20003 and shows no image.")
        case .unrecognizedType(let fileExtension, let known?) where !known.isAccepted:
            let fix = format.matchingTypeIdentifiers.isEmpty
                ? "Convert the image to JPEG, PNG or GIF."
                : "The bytes are \(format.displayName): serve them under its own extension and MIME type."
            return .error(.mediaUnsupportedFormat, "The file is saved as .\(fileExtension) (\(served)), a type iOS does not accept as an attachment (\(known.identifier)): UNError 101, no image. \(fix)")
        case .unrecognizedType(let fileExtension, _):
            let saved = fileExtension.isEmpty ? "with no file extension" : "as .\(fileExtension)"
            return .error(.mediaUnrecognizedType, "The file is saved \(saved) (\(served)), so iOS cannot tell its type: UNNotificationAttachment fails with UNError 101 \"Unrecognized attachment file type\" and no image is shown.\(rename)")
        case .invalidFileSize(let bytes, let limit, let category):
            return .error(.mediaTooLarge, "The \(category.rawValue) is \(bytes) bytes; iOS accepts at most \(limit) bytes for \(category.rawValue) attachments (UNError 102), so no image is shown. Make the file smaller.")
        }
    }

    private static func diagnose(_ error: MediaFetchError, url: URL, profile: DeviceProfile) -> Diagnostic {
        switch error {
        case .timeout(let received):
            return .error(.mediaTimeout, "The download of \(url.absoluteString) did not finish within the \(profile.timeBudget.secondsText) budget (\(received) bytes received). Serve the image from a faster CDN or make it smaller.")
        case .network(let detail):
            return .error(.mediaNetwork, "The download of \(url.absoluteString) failed: \(detail). Firebase's helper logs error 20001 and shows no image. Check that the host resolves and serves https.")
        case .tooManyRedirects(let limit):
            return .error(.mediaTooManyRedirects, "\(url.absoluteString) redirected more than \(limit) times (a redirect loop?). The download fails and no image is shown. Point the payload at the final URL.")
        case .insecureRedirect(let hop):
            return .error(.mediaInsecureURL, "\(url.absoluteString) redirects to a plain http URL (\(hop.absoluteString)), which App Transport Security blocks in the extension: the download fails and no image is shown. Make every redirect stay on https, or pass --allow-http if the extension's Info.plist has an ATS exception.")
        case .unsupportedRedirect(let hop):
            return .error(.mediaNetwork, "\(url.absoluteString) redirects to \(hop.absoluteString), a `\(hop.scheme ?? "")` URL: URLSession follows redirects to http and https only, so the download fails (Firebase's helper logs error 20001) and no image is shown. Point the payload at the image's https URL.")
        case .headersTooLarge(let limit):
            return .error(.mediaNetwork, "The server's response to \(url.absoluteString) has more than \(limit) bytes of headers. nse refuses such a response (what iOS does with it is unknown); no image is shown. Fix the server or CDN configuration.")
        case .tooLarge(let limit, let declared):
            let size = declared.map { "announces \($0) bytes" } ?? "sent more than \(limit) bytes"
            // The other reading of "MB" is worth a word only when it would let this file through.
            let binaryLimit = limit / profile.megabyte * 1_048_576
            let unit = profile.megabyteIsKnown && profile.megabyte == 1_000_000 && declared.map({ $0 <= binaryLimit }) == true
                ? " (assuming 1 MB = 1,000,000 bytes; with --megabyte 1048576, the binary reading, it would pass)" : ""
            return .error(.mediaTooLarge, "The image \(size); iOS accepts at most \(limit) bytes\(unit), so no image is shown. Compress or resize it.")
        case .truncated(let expected, let received):
            let announced = expected.map { " of the \($0) announced" } ?? ""
            return .error(.mediaTruncated, "The connection closed after \(received) bytes\(announced). The download fails and no image is shown. Check the CDN or origin for dropped connections.")
        case .cannotSave(let detail):
            return .error(.mediaNotSaved, "The downloaded file could not be saved: \(detail).")
        case .cancelled:
            return .error(.mediaNetwork, "The download of \(url.absoluteString) was cancelled.")
        case .downloaderUnavailable(let reason):
            return .downloaderUnavailable(reason)
        }
    }
}
