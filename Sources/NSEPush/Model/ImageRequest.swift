/// The image a payload asks an SDK's service-extension helper to attach, read once from that SDK's key.
///
/// Firebase's helper reads only `fcm_options.image` (firebase-ios-sdk's FIRMessagingExtensionHelper.m); another
/// SDK's key becomes another `source` here. The lint judges a request that can never show; the helper downloads `url`.
public struct ImageRequest: Sendable, Hashable {
    /// The key path the request came from, as messages name it.
    public var source: String
    public var value: Value

    public enum Value: Sendable, Hashable {
        /// The URL text, as written.
        case url(String)
        /// The container (`fcm_options`) is not a dictionary: the helper ignores it.
        case containerNotObject(JSONValue)
        /// The image key holds something other than a string: the helper ignores it.
        case notString(JSONValue)
    }

    /// Firebase's request, when the payload makes one (`fcm_options` present with a non-null `image`, or an
    /// `fcm_options` that is not even a dictionary); nil when the payload asks for no image.
    public static func firebase(in payload: [String: JSONValue]) -> ImageRequest? {
        let source = "fcm_options.image"
        switch payload["fcm_options"] {
        case nil, .null?:
            return nil
        case .object(let options)?:
            switch options["image"] {
            case nil, .null?: return nil
            case .string(let text)?:
                #if DEBUG
                ImageRequestParses.noteKey(text)
                #endif
                return ImageRequest(source: source, value: .url(text))
            case let other?: return ImageRequest(source: source, value: .notString(other))
            }
        case let other?:
            return ImageRequest(source: "fcm_options", value: .containerNotObject(other))
        }
    }

    /// The URL the helper downloads; nil when it ignores the request.
    public var url: String? {
        if case .url(let text) = value { return text }
        return nil
    }
}
