import Foundation
import NSEPush
import UserNotifications

/// `com.urbanairship.media_attachment`, parsed as Airship's `Decodable` does (MediaAttachmentPayload.swift): a
/// wrong type anywhere, a missing `url`/`urls`, or a crop value outside 0...1 fails the whole payload.
struct MediaAttachmentPayload: Sendable {
    struct Media: Sendable {
        var url: URL
        var urlID: String?
    }

    struct Options: Sendable {
        var crop: [String: Double]?
        var time: Double?
        var hidden: Bool?
    }

    var media: [Media]
    var title: String?
    var subtitle: String?
    var body: String?
    var options: Options
    var thumbnailID: String?

    /// Why the payload does not decode, in the words of the key at fault.
    struct Invalid: Error, Sendable {
        var reason: String
    }

    static let key = SDKDescriptor.airship.mediaKey

    /// nil when the key is absent or not a dictionary (Airship then delivers the content as it came).
    init?(userInfo: [String: JSONValue]) throws(Invalid) {
        guard case .object(let fields)? = userInfo[Self.key] else { return nil }
        if let urls = fields["urls"] {
            guard case .array(let items) = urls else { throw Invalid(reason: "`urls` is not an array") }
            var found: [Media] = []
            for item in items {
                guard case .object(let entry) = item else { throw Invalid(reason: "an `urls` entry is not an object") }
                var strings: [String: String] = [:]
                for (name, value) in entry {
                    guard case .string(let text) = value else { throw Invalid(reason: "`urls` entry field `\(name)` is not a string") }
                    strings[name] = text
                }
                // An entry whose `url` is missing or not a URL is dropped, not an error.
                guard let text = strings["url"], let url = URL(string: text) else { continue }
                found.append(Media(url: url, urlID: strings["url_id"]))
            }
            media = found
        } else if let url = fields["url"] {
            let texts: [String]
            switch url {
            case .string(let text): texts = [text]
            case .array(let items):
                var strings: [String] = []
                for item in items {
                    guard case .string(let text) = item else { throw Invalid(reason: "`url` is an array holding a non-string") }
                    strings.append(text)
                }
                texts = strings
            default: throw Invalid(reason: "`url` is neither a string nor an array of strings")
            }
            media = texts.compactMap { URL(string: $0).map { Media(url: $0, urlID: nil) } }
        } else {
            throw Invalid(reason: "it has neither `url` nor `urls`")
        }
        thumbnailID = try Self.string(fields["thumbnail_id"], "thumbnail_id")
        if case .object(let content)? = fields["content"] {
            title = try Self.string(content["title"], "content.title")
            subtitle = try Self.string(content["subtitle"], "content.subtitle")
            body = try Self.string(content["body"], "content.body")
        } else if let content = fields["content"], content != .null {
            throw Invalid(reason: "`content` is not an object")
        }
        options = Options()
        if case .object(let values)? = fields["options"] {
            options.time = try Self.number(values["time"], "options.time")
            if let hidden = values["hidden"], hidden != .null {
                guard case .bool(let flag) = hidden else { throw Invalid(reason: "`options.hidden` is not a boolean") }
                options.hidden = flag
            }
            if let crop = values["crop"], crop != .null {
                guard case .object(let entries) = crop else { throw Invalid(reason: "`options.crop` is not an object") }
                var numbers: [String: Double] = [:]
                for (name, value) in entries { numbers[name] = try Self.number(value, "options.crop.\(name)") }
                for required in ["x", "y", "width", "height"] {
                    guard let value = numbers[required], (0...1).contains(value) else {
                        throw Invalid(reason: "`options.crop.\(required)` is missing or outside 0...1 (the crop is a normalized rectangle)")
                    }
                }
                options.crop = numbers
            }
        } else if let values = fields["options"], values != .null {
            throw Invalid(reason: "`options` is not an object")
        }
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(Invalid) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Invalid(reason: "`\(name)` is not a string")
        }
    }

    private static func number(_ value: JSONValue?, _ name: String) throws(Invalid) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)?: return Double(number)
        case .double(let number)?: return number
        default: throw Invalid(reason: "`\(name)` is not a number")
        }
    }

    /// The attachment options for one item: its thumbnail hidden when another item is the thumbnail (or
    /// `options.hidden` says so), the crop with its keys capitalized, the thumbnail time.
    func attachmentOptions(for item: Media) -> [String: Any] {
        let identifier = item.urlID ?? ""
        var result: [String: Any] = [UNNotificationAttachmentOptionsThumbnailHiddenKey: thumbnailID != nil && thumbnailID != identifier]
        if let crop = options.crop {
            result[UNNotificationAttachmentOptionsThumbnailClippingRectKey] = Dictionary(uniqueKeysWithValues: crop.map { ($0.key.capitalized, NSNumber(value: $0.value)) })
        }
        if let time = options.time { result[UNNotificationAttachmentOptionsThumbnailTimeKey] = time }
        if let hidden = options.hidden { result[UNNotificationAttachmentOptionsThumbnailHiddenKey] = hidden }
        return result
    }
}
