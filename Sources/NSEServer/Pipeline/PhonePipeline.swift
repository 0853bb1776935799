import Foundation
import NSEHarness
import NSEPush
import NSEMedia
import NSEPipeline

/// The one place `nse serve` calls the push pipeline: the checks stage for a request's answer, and the whole
/// pipeline (`nse process`'s: checks, the extension, downloads, attachment validation) for what a phone shows.
/// Everything else in NSEServer goes through this file, so a change to NSEKit's API changes this file only.
public struct PhonePipeline: Sendable {
    /// The device options of `nse process` that apply to every emulated phone.
    public struct Defaults: Sendable {
        public var profile: DeviceProfile
        public var changes: ContentChanges
        public var hostMapping: MediaHostMapping?

        public init(profile: DeviceProfile = DeviceProfile(), changes: ContentChanges = ContentChanges(), hostMapping: MediaHostMapping? = nil) {
            self.profile = profile
            self.changes = changes
            self.hostMapping = hostMapping
        }
    }

    let defaults: Defaults
    /// The apps' own extensions, built once each.
    let appExtensions: AppExtensions
    /// The images a burst of pushes shares; nil: every push downloads its own.
    let downloads: SharedDownloads?

    /// `extensionCache`: where apps' own extensions are built (`nse extension`'s cache: NSE_CACHE_DIR, else
    /// ~/.cache/nse, when nil).
    public init(defaults: Defaults, extensionCache: URL? = nil) {
        self.init(defaults: defaults, extensionCache: extensionCache, downloads: nil)
    }

    init(defaults: Defaults, extensionCache: URL?, downloads: SharedDownloads?) {
        self.defaults = defaults
        appExtensions = AppExtensions(cacheRoot: extensionCache ?? ExtensionPackage.defaultCacheRoot())
        self.downloads = downloads
    }

    /// The push iOS receives from an APNs request: its apns-* headers and its body, read as `nse process` reads an
    /// envelope file `{"headers": {...}, "payload": {...}}`. A body that is not one JSON object gets the same
    /// finding a payload file with that content gets.
    static func apnsPush(headers: [String: String], body: [UInt8]) -> Result<ReceivedPush, InputError> {
        let payload = Data(body)
        // The usual body, a bare APNs payload, is parsed once and given the request's headers: the push an envelope
        // of it gives (the payload's size measured on the same bytes).
        if let bare = try? PushReader.parse(payload), bare.kind == .apns, !bare.isEnvelope, bare.fcmMessage == nil {
            return .success(ReceivedPush(
                kind: .apns, userInfo: bare.userInfo, payloadBytes: bare.payloadBytes, diagnostics: bare.diagnostics,
                headers: headers.mapValues { JSONValue.string($0) }, isEnvelope: true))
        }
        // Any other body (not an object, an FCM message, keys an envelope or simctl file has): read inside an
        // envelope, so it gets the findings that file would.
        do {
            guard case .object = try JSONValue.parse(payload) else { return Self.read(payload) }
        } catch {
            return Self.read(payload)
        }
        // The body parsed alone as one object, so nothing in it can stand for the envelope's own keys.
        let headerObject = JSONValue.object(headers.mapValues { JSONValue.string($0) })
        var envelope = Data(#"{"headers":"#.utf8)
        envelope.append(headerObject.compactData())
        envelope.append(contentsOf: Array(#","payload":"#.utf8))
        envelope.append(payload)
        envelope.append(contentsOf: Array("}".utf8))
        return Self.read(envelope)
    }

    /// The push an FCM send request resolves to for iOS, with the message kept for FCM's own checks.
    static func fcmPush(body: [UInt8]) -> Result<ReceivedPush, InputError> {
        read(Data(body))
    }

    private static func read(_ bytes: Data) -> Result<ReceivedPush, InputError> {
        do {
            return .success(try PushReader.parse(bytes))
        } catch {
            return .failure(error)
        }
    }

    /// The checks stage alone (what `nse lint` runs): the findings that decide the request's answer.
    static func check(_ push: ReceivedPush, platform: DeviceEntry.DevicePlatform) -> [Diagnostic] {
        PushChecks.run(push, options: CheckOptions(platform: platform == .ios ? .ios : .android)).diagnostics
    }

    /// A push checked for one phone as its delivery checks it: the findings answer the sender, and the delivery
    /// reuses them instead of checking the push again.
    struct CheckedPush: Sendable {
        let push: ReceivedPush
        /// The findings that answered the request (none for a push whose delivery checks it).
        let diagnostics: [Diagnostic]
        /// The phone's pipeline's own checks; nil when the delivery checks the push (an app's own extension, whose
        /// process reads the push again, or a topic's devices past the first of each platform).
        let readAhead: Pipeline.ReadAhead?
        /// The pipeline that made `readAhead`, which its delivery runs.
        var pipeline: Pipeline? = nil
        /// The push's place in the burst whose downloads `pipeline` shares, released when it is delivered.
        var downloads: SharedDownloads.Lease? = nil
    }

    /// Checks `push` as `device`'s phone will when it is delivered.
    func check(_ push: ReceivedPush, for device: DeviceEntry) -> CheckedPush {
        guard let pipeline = builtInPipeline(for: device) else {
            return CheckedPush(push: push, diagnostics: Self.check(push, platform: device.platform), readAhead: nil)
        }
        // Checked without the burst's cache, so checking starts no download (`Pipeline.readAhead` would start the
        // image's, for every push accepted, however many): the deliveries download, 32 at most at once.
        let readAhead = pipeline.readAhead(push)
        return CheckedPush(
            push: push, diagnostics: readAhead.checks.diagnostics, readAhead: readAhead, pipeline: pipeline, downloads: downloads?.lease())
    }

    /// Runs a checked push through `device`'s phone as `nse process` does, saving attachments in `attachments`.
    /// The result is `nse process --format json`'s object for the push.
    func deliver(_ checked: CheckedPush, to device: DeviceEntry, input: String, attachments: URL?) async -> ProcessResult {
        // The push's place in its burst (taken when it was checked, or now for a push checked without this pipeline)
        // is given up once the run is done, before its delivery is recorded: a test told every push is delivered
        // (`?settled=1`) finds its next push in a new burst.
        let lease = checked.downloads ?? downloads?.lease()
        defer { lease?.release() }
        guard var pipeline = checked.pipeline ?? builtInPipeline(for: device) else {
            // Only a folder extension has no built-in pipeline, so its path is there.
            return await appExtensions.deliver(
                checked.push, path: device.extension.path ?? "", defaults: defaults, platform: device.platform, attachments: attachments, input: input)
        }
        pipeline.mediaCache = lease?.burst.cache
        if let readAhead = checked.readAhead {
            return await pipeline.run(readAhead, input: input, attachmentDirectory: attachments)
        }
        return await pipeline.run(checked.push, input: input, attachmentDirectory: attachments)
    }

    /// The pipeline of a phone whose extension runs in this process (none, or a built-in SDK helper); nil for an
    /// app's own extension, which runs in a process of its own (`AppExtensions`).
    private func builtInPipeline(for device: DeviceEntry) -> Pipeline? {
        if device.extension.kind == .folder, device.extension.path != nil { return nil }
        var pipeline = Pipeline(
            device: defaults.profile, changes: defaults.changes, hostMapping: defaults.hostMapping,
            sdk: device.sdkSelection ?? .auto)
        pipeline.platform = device.platform == .ios ? .ios : .android
        return pipeline
    }

    /// The result as `nse process --format jsonl` prints it (the same encoder), on one line.
    static func json(_ result: ProcessResult) -> Data {
        (try? SortedJSONEncoder().encode(result)) ?? Data("{}".utf8)
    }
}
