@_exported import Foundation
import NSEPush
import NSEMedia
import Synchronization
import UserNotifications
import NSEPipeline
import NSEReports

/// The service-extension half of Pushwoosh's `PushwooshNotificationUI` module (pushwoosh-ios-sdk,
/// `PushwooshNotificationUI/Sources`): a Notification Service Extension imports it beside `PushwooshFramework`
/// to download a `pw_stories` push's images into the App Group before the content extension shows them. (The
/// content-extension half, `PushwooshStoriesViewController`, draws UI that a service extension never runs.)
public enum PushwooshStoriesMediaPrefetcher {
    /// Downloads every story page's `image` not yet in the App Group's `pw_stories_cache` (named by the SHA-256 of
    /// its URL, as Pushwoosh names it), keeps the bytes that are an image, and calls `completion` once all are done.
    /// Pushwoosh calls `completion` on the main queue; here it is called on the thread that finished last.
    public static func prefetch(userInfo: [AnyHashable: Any], appGroupIdentifier: String, completion: @escaping () -> Void) {
        let urls = StoryPages.imageURLs(in: userInfo)
        let environment = ExtensionEnvironment.current
        guard !urls.isEmpty else {
            environment?.log(.info, "PushwooshStoriesMediaPrefetcher: no `pw_stories` pages with an image URL: nothing to prefetch", source: "PushwooshNotificationUI")
            completion()
            return
        }
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroupIdentifier) else {
            completion()
            return
        }
        let cache = container.appendingPathComponent("pw_stories_cache", isDirectory: true)
        try? FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let pending = urls.map { ($0, cache.appendingPathComponent(cacheName(for: $0))) }
            .filter { !FileManager.default.fileExists(atPath: $0.1.path) }
        let remaining = Mutex(pending.count)
        guard !pending.isEmpty else {
            completion()
            return
        }
        for (url, file) in pending {
            URLSession.shared.dataTask(with: url) { data, _, _ in
                if let data, MediaFormat.sniff(Array(data.prefix(MediaFormat.sniffLength))).imageMIMETypes.isEmpty == false {
                    try? data.write(to: file, options: .atomic)
                }
                let last = remaining.withLock { count in
                    count -= 1
                    return count == 0
                }
                if last { completion() }
            }.resume()
        }
    }

    /// The lowercase hex SHA-256 of the URL's absolute string.
    static func cacheName(for url: URL) -> String {
        let digest = SHA256()
        digest.update(Array(url.absoluteString.utf8))
        return digest.finalizeHex()
    }
}

/// Where a `pw_stories` block is and which of its pages have an image URL, as Pushwoosh's payload parser reads it.
enum StoryPages {
    /// Each page's `image`, when it is a URL with a scheme; the block sits at the root, or in the custom data
    /// (`u` or `userdata`, a dictionary or its JSON text).
    static func imageURLs(in userInfo: [AnyHashable: Any]) -> [URL] {
        guard let block = storiesBlock(userInfo), let pages = block["pages"] as? [[String: Any]] else { return [] }
        return pages.compactMap { page in
            guard let text = page["image"] as? String, let url = URL(string: text), url.scheme != nil else { return nil }
            return url
        }
    }

    private static func storiesBlock(_ userInfo: [AnyHashable: Any]) -> [String: Any]? {
        if let root = userInfo["pw_stories"] as? [String: Any] { return root }
        for container in [userInfo["u"], userInfo["userdata"]] {
            if let data = dictionary(container), let block = data["pw_stories"] as? [String: Any] { return block }
        }
        return nil
    }

    private static func dictionary(_ value: Any?) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        guard let text = value as? String, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        return object as? [String: Any]
    }
}
