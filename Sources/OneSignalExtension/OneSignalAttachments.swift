import Foundation
import NSEMedia
import NSEPush
import UserNotifications

/// `att` (`OneSignalAttachmentHandler.addAttachments` and `downloadMediaAndSaveInBundle`): every item is
/// downloaded in turn on the calling thread, named by the first rule that gives an allowed file extension, and
/// attached with its key as identifier. A failed item is skipped; the attachments that worked replace the
/// content's own.
enum OneSignalAttachments {
    /// The file extensions OneSignal lets through (`ONESIGNAL_SUPPORTED_ATTACHMENT_TYPES`), compared as written.
    static let allowed: Set<String> = ["aiff", "wav", "mp3", "mp4", "jpg", "jpeg", "png", "gif", "mpeg", "mpg", "avi", "m4a", "m4v"]
    /// `MIME_MAP` (NSString+OneSignal.m): OneSignal's own table, not the system's.
    static let mimeMap: [String: String] = [
        "audio/aiff": "aiff", "audio/x-wav": "wav", "audio/mpeg": "mp3", "video/mp4": "mp4", "image/jpeg": "jpeg",
        "image/jpg": "jpg", "image/png": "png", "image/gif": "gif", "video/mpeg": "mpeg", "video/mpg": "mpg",
        "video/avi": "avi", "sound/m4a": "m4a", "video/m4v": "m4v",
    ]
    /// `MAX_NOTIFICATION_MEDIA_SIZE_BYTES`: a response announcing more is cancelled before its body is read.
    static let maxContentLength: Int64 = 50_000_000

    /// False when iOS ended the extension during a download (the SDK never returns to call the handler).
    static func add(_ notification: OneSignalNotification, to content: UNMutableNotificationContent, environment: ExtensionEnvironment?) -> Bool {
        guard let value = notification.attachments, value != .null else { return true }
        let key = notification.attachmentsKey
        environment?.noteImageRequested()
        guard case .object(let items) = value else {
            environment?.record(.error(.sdkOneSignalInvalidAttachments, "`\(key)` is \(value.shortDescription), not a dictionary {identifier: URL}: OneSignal enumerates it as one, which raises an Objective-C exception for anything else (assumed: the extension then ends without an image). Send `\(key)` as {\"id\": \"https://...\"}."))
            content.attachments = []
            return true
        }
        let folder = environment?.makeWorkFolder() ?? FileManager.default.temporaryDirectory
        var attached: [UNNotificationAttachment] = []
        // NSDictionary's order is its hash order, which iOS does not define: assumed sorted by identifier here.
        for (identifier, item) in items.sorted(by: { $0.key < $1.key }) {
            switch attach(identifier: identifier, item: item, key: key, folder: folder, environment: environment) {
            case .attached(let attachment): attached.append(attachment)
            case .skipped: continue
            case .extensionEnded: return false
            }
        }
        if items.count > 1 {
            environment?.record(.warning(.sdkOneSignalAssumption, "`\(key)` has \(items.count) items: OneSignal downloads them one after another in the dictionary's order, which iOS does not define (assumed: sorted by identifier), and the time budget is shared by all."))
        }
        content.attachments = attached
        return true
    }

    enum Step {
        case attached(UNNotificationAttachment)
        case skipped
        case extensionEnded
    }

    private static func attach(identifier: String, item: JSONValue, key: String, folder: URL, environment: ExtensionEnvironment?) -> Step {
        func skip(_ why: String, code: DiagnosticCode = .sdkOneSignalAttachmentSkipped) -> Step {
            environment?.record(.error(code, "OneSignal skips `\(key).\(identifier)`: \(why)"))
            return .skipped
        }
        guard let text = item.stringValue else {
            return skip("its value is \(item.shortDescription), not a URL string (assumed skipped; the SDK expects a string).", code: .sdkOneSignalInvalidAttachments)
        }
        let uri = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            // Not a web URL: OneSignal looks "name.ext" up in the app's bundle.
            let parts = uri.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 2 else { return skip("\"\(uri)\" is neither an http(s) URL nor a bundle resource name with an extension.") }
            return skip("\"\(uri)\" is not an http(s) URL, so OneSignal looks for a resource of that name in the app's bundle, which the emulator does not have (assumed missing). Use an https URL to check the image.")
        }
        let download = folder.appendingPathComponent(fileName(for: identifier, url: url))
        let started = ContinuousClock.now
        let result = StandInDownload.download(url, to: download, api: "OneSignal data task")
        environment?.record(timings: ["download": started.duration(to: .now).milliseconds])
        switch result {
        case .unfinished:
            return .extensionEnded
        case .failure(let error) where error.code == .dataLengthExceedsMaximum:
            return skip("the response is larger than any attachment may be; OneSignal cancels a download whose Content-Length passes \(maxContentLength) bytes, and iOS would refuse the file anyway.", code: .sdkOneSignalTooLarge)
        case .failure(let error):
            return skip("the download failed (NSURLErrorDomain \(error.errorCode)); OneSignal logs \"Encountered an error while attempting to download file\" and goes on without it.")
        case .response(let response, let file):
            let length = Int64(response.value(forHTTPHeaderField: "Content-Length") ?? "") ?? response.expectedContentLength
            if length > maxContentLength {
                try? FileManager.default.removeItem(at: file)
                return skip("the response announces \(length) bytes (Content-Length), over OneSignal's \(maxContentLength)-byte limit, so it cancels the download before reading the body.", code: .sdkOneSignalTooLarge)
            }
            let mime = mimeType(response)
            guard let fileExtension = fileExtension(for: url, mimeType: mime) else {
                try? FileManager.default.removeItem(at: file)
                return skip("no allowed file type: not from a `filename` query parameter, not from the MIME type (\(mime ?? "none"); OneSignal knows only \(mimeMap.keys.sorted().joined(separator: ", "))), not from the URL's path extension (\"\(url.pathExtension)\"), nor from any query value. OneSignal accepts only \(allowed.sorted().joined(separator: " ")): add `?filename=image.jpg` to the URL or serve a known MIME type.", code: .sdkOneSignalUnsupportedType)
            }
            let named = download.appendingPathExtension(fileExtension)
            do {
                try FileManager.default.moveItem(at: file, to: named)
            } catch {
                return skip("the download could not be renamed to \(named.lastPathComponent): \(error.localizedDescription).")
            }
            do {
                return .attached(try UNNotificationAttachment(identifier: identifier, url: named, options: nil))
            } catch {
                // UNNotificationAttachment has recorded why iOS refuses the file.
                return skip("UNNotificationAttachment refused the file saved as \(named.lastPathComponent) (\((error as NSError).code)); OneSignal drops it silently.")
            }
        }
    }

    /// The rules of `getSupportedFileExtensionFromURL:mimeType:`, in order: the `filename` query parameter's
    /// extension, OneSignal's MIME table, the URL's path extension, then any query value's extension; each only
    /// if allowed.
    static func fileExtension(for url: URL, mimeType: String?) -> String? {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        if let filename = query.first(where: { $0.name == "filename" })?.value, let found = supportedExtension(of: filename) {
            return found
        }
        if let mimeType, let found = mimeMap[mimeType], allowed.contains(found) { return found }
        if allowed.contains(url.pathExtension) { return url.pathExtension }
        for item in query {
            if let value = item.value, let found = supportedExtension(of: value) { return found }
        }
        return nil
    }

    /// `-[NSString supportedFileExtension]`: the text after the last "." when there is one and it is allowed.
    private static func supportedExtension(of name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, let last = parts.last, allowed.contains(String(last)) else { return nil }
        return String(last)
    }

    /// `NSURLResponse.MIMEType`: the Content-Type without parameters, lowercased.
    private static func mimeType(_ response: HTTPURLResponse) -> String? {
        guard let header = response.value(forHTTPHeaderField: "Content-Type") else { return nil }
        let type = header.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.isEmpty ? nil : type
    }

    /// OneSignal names each download with 10 random letters and digits; 10 characters of a digest of the item
    /// here, so reports name the same file on every run.
    private static func fileName(for identifier: String, url: URL) -> String {
        let digest = SHA256()
        digest.update(Array("\(identifier)\n\(url.absoluteString)".utf8))
        return String(digest.finalizeHex().prefix(10))
    }
}
