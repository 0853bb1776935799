import Foundation
import NSEPush

/// What firebase-messaging on Android does with a notification's image (firebase/firebase-android-sdk,
/// firebase-messaging's `ImageDownload`): downloads
/// `android.notification.image` (else `notification.image`) with a 1 MiB limit, checked against Content-Length and
/// the body, waits at most 5 seconds, and decodes it with `BitmapFactory`. On any failure the notification is
/// shown without the image.
public struct AndroidImageCheck: Sendable {
    /// `ImageDownload.MAX_IMAGE_SIZE_BYTES`: 1024 * 1024.
    public static let maxBytes = 1_048_576
    /// `DisplayNotification` waits this long for the download.
    public static let downloadBudget: Duration = .seconds(5)
    /// HttpURLConnection (OkHttp) follows this many redirects; inferred from OkHttp's limit, not documented by FCM.
    public static let maxRedirects = 20

    public var hostMapping: MediaHostMapping?
    /// The same limits as the iOS side's check (`DeviceProfile.imageLimits`): one decoder, one set of bounds.
    public var limits: ImageDecodeLimits
    public var budget: Duration
    /// What carries the download, and the clock its budget is on: libcurl's and the system's, or a unit test's.
    package var transport: any MediaTransport = CurlTransport()
    package var clock: any PipelineClock = SystemClock()
    /// Where a kept image is moved (`verify(_:keepingImageIn:)`).
    package var files: any FileStore = TemporaryFileStore()

    public init(hostMapping: MediaHostMapping? = nil, limits: ImageDecodeLimits = DeviceProfile().imageLimits, budget: Duration = Self.downloadBudget) {
        self.hostMapping = hostMapping
        self.limits = limits
        self.budget = budget
    }

    /// Whether `verify` downloads for `message`: its Android notification (not a data-only message) names an image.
    public static func downloads(_ message: FCMMessage) -> Bool {
        let android = FCMResolver.resolveForAndroid(message)
        return android.notification != nil && !(android.image ?? "").isEmpty
    }

    /// Verifies the Android side of `message`. With `folder`, an image the notification shows is saved there
    /// (`android-image.<ext>`, its path in `image.file`) for what draws the notification (the HTML report's card,
    /// `nse serve`'s phones page), as an iOS attachment is.
    public func verify(_ message: FCMMessage, keepingImageIn folder: URL? = nil) async -> AndroidResult {
        let android = FCMResolver.resolveForAndroid(message)
        var result = AndroidResult(notification: android.notification, data: android.data)
        guard android.notification != nil else {
            result.diagnostics.append(.info(.androidImageNone, "A data-only message for Android: the system shows no notification, so there is no image; the app's onMessageReceived gets the data."))
            return result
        }
        guard let text = android.image, !text.isEmpty else {
            result.diagnostics.append(.info(.androidImageNone, "No `android.notification.image` or `notification.image`: the Android notification has no image to download."))
            return result
        }
        result.imageURL = text
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            result.diagnostics.append(.error(.androidImageInvalidURL, "The Android image URL \"\(text)\" is not an absolute http(s) URL: the FCM SDK logs \"bad URL\" and shows the notification without the image. Use an absolute https URL."))
            return result
        }
        if scheme == "http" {
            result.diagnostics.append(.warning(.androidImageInsecureURL, "The Android image URL uses plain http: Android 9 (API 28) and later block cleartext traffic unless the app's network security config allows it, and then the notification shows without the image. Serve it over https."))
        }

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("nse-android-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        } catch {
            result.diagnostics.append(.error(.androidImageNetwork, "Cannot create a working folder for the Android download: \(error.localizedDescription)."))
            return result
        }
        var profile = DeviceProfile()
        profile.allowsHTTP = true  // App Transport Security is iOS's; Android's cleartext rule is the warning above.
        profile.maxRedirects = Self.maxRedirects
        var fetcher = MediaFetcher(profile: profile, hostMapping: hostMapping)
        fetcher.transport = transport
        let fetched: FetchedMedia
        do {
            fetched = try await fetcher.fetch(url, to: work.appendingPathComponent("image"), deadline: clock.now + budget) { _ in Self.maxBytes }
        } catch {
            result.diagnostics.append(diagnose(error, url: url))
            return result
        }
        guard (200..<300).contains(fetched.head.status) else {
            result.diagnostics.append(.error(.androidImageHTTPStatus, "The Android image URL answered HTTP \(fetched.head.status): HttpURLConnection fails and the notification shows without the image. Fix the URL or the server."))
            return result
        }
        judge(fetched, into: &result)
        if let keep = folder, result.imageShown { save(fetched.file, in: keep, into: &result) }
        return result
    }

    /// Moves the downloaded image into `folder`; a failure is a warning, the verdict is unaffected.
    private func save(_ file: URL, in folder: URL, into result: inout AndroidResult) {
        guard var image = result.image else { return }
        let name = "android-image" + (image.format.conventionalExtension.map { "." + $0 } ?? "")
        let destination = folder.appending(path: name, directoryHint: .notDirectory)
        do {
            try files.move(file, to: destination)
            image.file = destination.relativePath
            result.image = image
        } catch {
            result.diagnostics.append(.warning(.mediaNotSaved, "The Android image could not be saved to \(destination.path): \(error.localizedDescription). The verdict is unaffected."))
        }
    }

    /// Decides, from the bytes, whether `BitmapFactory` decodes the image.
    private func judge(_ fetched: FetchedMedia, into result: inout AndroidResult) {
        let format = MediaFormat.sniff(fetched.prefix)
        var image = AndroidImage(bytes: fetched.bytes, format: format, decoded: false, sha256: fetched.sha256)
        switch format {
        case .jpeg, .png, .gif:
            do {
                if let decoded = try ImageDecoder.decode(fetched.file, as: format, limits: limits) {
                    image.decoded = true
                    image.width = decoded.width
                    image.height = decoded.height
                    image.frames = decoded.frames
                    if let warning = decoded.warning {
                        result.diagnostics.append(.warning(.androidImageCorrupt, "The Android image decodes with damage (\(warning)); BitmapFactory shows what decodes, possibly with a grey part. Re-export the image."))
                    }
                    if decoded.frames > 1 {
                        result.diagnostics.append(.info(.androidImageFirstFrame, "The GIF has \(decoded.frames) frames; the Android notification shows only the first."))
                    }
                }
            } catch {
                result.image = image
                switch error {
                case .corrupt(let detail), .unreadable(let detail):
                    result.diagnostics.append(.error(.androidImageCorrupt, "The Android image does not decode as \(format.displayName) (\(detail)): BitmapFactory returns null and the notification shows without the image. Re-export the image."))
                case .tooManyPixels(let width, let height, let limit):
                    result.diagnostics.append(.error(.androidImageTooLarge, "The Android image is \(width) x \(height) pixels, more than \(limit) (--max-pixels): decoding it needs more memory than the app has, and the notification shows without it. Resize it."))
                case .overLimit(let kind, _, let limit, let detail):
                    result.diagnostics.append(.error(.androidImageDecodeLimit, "The Android image was not fully checked: \(detail). \(kind.explanation(limit: limit, platform: "Android's BitmapFactory")). nse counts it as not shown."))
                }
                return
            }
        case .webp, .bmp:
            // Recognised by the magic number; nse has no WebP or BMP decoder, so the pixels are not checked.
            break
        default:
            result.image = image
            let reason = format == .heic
                ? "HEIF/AVIF is not among the formats the FCM SDK's BitmapFactory is documented to decode (JPEG, PNG, BMP, WebP, GIF); some newer devices may decode it, older ones do not"
                : "BitmapFactory decodes JPEG, PNG, BMP, WebP and GIF only, so it returns null"
            result.diagnostics.append(.error(.androidImageUnsupportedFormat, "The Android image is \(format.displayName): \(reason), and the notification shows without the image. Serve a JPEG or PNG."))
            return
        }
        result.image = image
        result.imageShown = true
    }

    private func diagnose(_ error: MediaFetchError, url: URL) -> Diagnostic {
        let seconds = budget.secondsText
        switch error {
        case .timeout(let received):
            return .error(.androidImageTimeout, "The Android image did not download within \(seconds) (\(received) bytes received): the FCM SDK stops waiting and shows the notification without it. Serve it from a faster CDN or make it smaller.")
        case .tooLarge(let limit, let declared):
            let size = declared.map { "announces \($0) bytes" } ?? "sent more than \(limit) bytes"
            return .error(.androidImageTooLarge, "The Android image \(size); the FCM SDK accepts at most \(limit) bytes (1 MiB) and shows the notification without it. Compress or resize it.")
        case .network(let detail):
            return .error(.androidImageNetwork, "The Android image download from \(url.absoluteString) failed: \(detail). The notification shows without the image.")
        case .tooManyRedirects(let limit):
            return .error(.androidImageNetwork, "\(url.absoluteString) redirected more than \(limit) times: the download fails and the notification shows without the image. Point the message at the final URL.")
        case .insecureRedirect(let hop):
            return .error(.androidImageNetwork, "\(url.absoluteString) redirects to plain http (\(hop.absoluteString)): the download fails. Keep every redirect on https.")
        case .unsupportedRedirect(let hop):
            return .error(.androidImageNetwork, "\(url.absoluteString) redirects to \(hop.absoluteString), a `\(hop.scheme ?? "")` URL the FCM SDK's HTTP client does not follow: the download fails and the notification shows without the image.")
        case .headersTooLarge(let limit):
            return .error(.androidImageNetwork, "The server's response to \(url.absoluteString) has more than \(limit) bytes of headers; nse refuses it (what Android does with it is unknown) and reports the image as not shown.")
        case .truncated(let expected, let received):
            return .error(.androidImageNetwork, "The connection closed after \(received) bytes\(expected.map { " of \($0)" } ?? ""): the download fails and the notification shows without the image.")
        case .cannotSave(let detail):
            return .error(.androidImageNetwork, "The Android image could not be saved for checking: \(detail).")
        case .cancelled:
            return .error(.androidImageNetwork, "The Android image download was cancelled.")
        case .downloaderUnavailable(let reason):
            return .downloaderUnavailable(reason)
        }
    }
}
