@_exported import Foundation
import NSEPush
import UniformTypeIdentifiers
import UserNotifications
import NSEPipeline
import NSEMedia
import NSEReports

/// Notificare's service-extension helper (Notificare/notificare-sdk-ios 4.x,
/// `NotificareNotificationServiceExtensionKit/Sources/NotificareNotificationServiceExtension.swift`). Extensions
/// call `NotificareNotificationServiceExtension.handleNotificationRequest(request) { result in ... }` and deliver
/// `request.content` themselves on `.failure`.
///
/// Reads `attachment.uri`, loads it into memory with `URLSession.shared.data(from:)`, writes it to the Documents
/// folder under the URL's last path component, and attaches it (replacing any attachments) with a full-image
/// thumbnail crop and a type hint derived from the response's MIME type.
public class NotificareNotificationServiceExtension {
    private init() {}

    public static func handleNotificationRequest(_ request: UNNotificationRequest, _ completion: @escaping (Result<UNNotificationContent, Swift.Error>) -> Void) {
        handle(request, environment: ExtensionEnvironment.current) { result in
            // After a crash the process is gone: nothing more is called.
            if case .failure(let error) = result, error is ProcessEnded { return }
            completion(result)
        }
    }

    public static func handleNotificationRequest(_ request: UNNotificationRequest) async throws -> UNNotificationContent {
        let environment = ExtensionEnvironment.current
        return try await withCheckedThrowingContinuation { continuation in
            handle(request, environment: environment) { continuation.resume(with: $0) }
        }
    }

    /// Notificare does this in a Swift task around `URLSession.shared.data(from:)`; the stand-in runs it on the
    /// data task's callback, so its timing never depends on Swift's shared executor.
    private static func handle(_ request: UNNotificationRequest, environment: ExtensionEnvironment?, completion: @escaping (Result<UNNotificationContent, Swift.Error>) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            return completion(.failure(Error.downloadFailed))
        }
        let finish = { (result: Result<UNNotificationAttachment?, Swift.Error>) in
            switch result {
            case .success(let attachment):
                if let attachment { content.attachments = [attachment] }
                completion(.success(content))
            case .failure(let error as ProcessEnded):
                completion(.failure(error))
            case .failure(let error):
                environment?.record(NotificareFindings.failure(error))
                completion(.failure(error))
            }
        }
        guard let attachment = request.content.userInfo[SDKDescriptor.notificare.mediaKey] as? [String: Any], let uri = attachment["uri"] as? String else {
            environment?.record(NotificareFindings.noAttachment)
            return finish(.success(nil))
        }
        environment?.noteImageRequested()
        guard let url = URL(string: uri) else { return finish(.failure(Error.invalidUrl)) }
        URLSession.shared.dataTask(with: url) { data, response, error in
            finish(Result {
                if let error { throw error }
                guard let data, let response else { throw URLError(.unknown) }
                return try attach(data, response: response, url: url, environment: environment)
            })
        }.resume()
    }

    private static func attach(_ data: Data, response: URLResponse, url: URL, environment: ExtensionEnvironment?) throws -> UNNotificationAttachment {
        // Notificare's `url.pathComponents.last!`: a URL without a path traps, and the extension crashes.
        guard let fileName = url.pathComponents.last else {
            environment?.crash(NotificareFindings.noPathComponent(url.absoluteString))
            throw ProcessEnded()
        }
        let documents = documentsFolder(environment)
        let filePath = URL(fileURLWithPath: documents.path).appendingPathComponent(fileName)
        do {
            try data.write(to: filePath, options: .atomic)
        } catch {
            throw Error.downloadFailed
        }

        var options: [AnyHashable: Any] = [
            UNNotificationAttachmentOptionsThumbnailClippingRectKey: CGRect(x: 0, y: 0, width: 1, height: 1),
        ]
        if let mimeType = response.mimeType {
            let hint = preferredIdentifier(forMIMEType: mimeType)
            options[UNNotificationAttachmentOptionsTypeHintKey] = hint
            environment?.record(NotificareFindings.typeHint(hint, mimeType: mimeType, fileName: fileName))
        }
        do {
            return try UNNotificationAttachment(identifier: "file_\(fileName)", url: filePath, options: options)
        } catch {
            throw Error.downloadFailed
        }
    }

    /// `UTTypeCreatePreferredIdentifierForTag(kUTTagClassMIMEType, ...)`: the declared type of the MIME type, else
    /// a dynamic identifier (which names no attachment type).
    private static func preferredIdentifier(forMIMEType mimeType: String) -> String {
        if let type = UTType(mimeType: mimeType) { return type.identifier }
        if mimeType.lowercased() == "application/octet-stream" { return "public.data" }
        return "dyn.ah62d4r34gq81k3p2su11upputf2a"
    }

    /// The app's Documents folder, which on Linux would be the user's own: the run's own folder instead.
    private static func documentsFolder(_ environment: ExtensionEnvironment?) -> URL {
        let folder = (environment?.context.workDirectory ?? FileManager.default.temporaryDirectory).appendingPathComponent("Documents", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    public enum Error: Swift.Error {
        case invalidUrl
        case downloadFailed
    }

    /// Thrown where the SDK's code traps: the harness has already ended the run as a crash.
    struct ProcessEnded: Swift.Error {}
}
