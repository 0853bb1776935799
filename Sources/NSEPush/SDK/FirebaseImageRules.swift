import Foundation

/// The rules Firebase's helper (`FIRMessagingExtensionHelper`, firebase-ios-sdk's
/// FirebaseMessaging/Sources/FIRMessagingExtensionHelper.m) applies to `fcm_options.image` before and after its
/// download: pure functions, so lint can foretell what the download can only confirm.
package enum FirebaseImageRules {
    /// `URL(string:)` as iOS 17 and later apply it: invalid characters are percent-encoded rather than fatal.
    package static func parseURL(_ text: String, diagnostics: inout [Diagnostic]) -> URL? {
        #if DEBUG
        ImageRequestParses.noteURL(text)
        #endif
        let strict = URL(string: text, encodingInvalidCharacters: false)
        let lenient = strict ?? URL(string: text)
        guard let url = lenient, let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              scheme == "http" || scheme == "https" else {
            diagnostics.append(.error(
                .mediaInvalidURL,
                "`fcm_options.image` is not a usable http(s) URL: \"\(text)\". Firebase's helper logs error 20000 and shows no image. Use an absolute https URL."))
            return nil
        }
        if strict == nil {
            diagnostics.append(.warning(
                .mediaInvalidURL,
                "`fcm_options.image` contains characters that must be percent-encoded (\"\(text)\"). iOS 17 and later encode them; iOS 16 and earlier reject the URL (Firebase error 20000) and show no image. Percent-encode the URL."))
        }
        return url
    }

    /// App Transport Security: extensions load plain http only with an Info.plist exception.
    package static func passesTransportSecurity(_ url: URL, profile: DeviceProfile, diagnostics: inout [Diagnostic]) -> Bool {
        guard !profile.transportSecurityAllows(url) else { return true }
        diagnostics.append(.error(
            .mediaInsecureURL,
            "The image URL uses plain http (\(url.absoluteString)). App Transport Security blocks it in the extension, so the download fails and no image is shown. Serve it over https, or \(TransportSecurity.remedy(for: url.host ?? ""))."))
        return false
    }

    /// The extension Firebase gives the downloaded file: `suggestedFilename`'s, else ".subtype" for image/ MIME types.
    package static func fileExtension(for head: ResponseHead, profile: DeviceProfile) -> String {
        let suggested = ResponseHead.pathExtension(of: head.suggestedFilename(profile: profile))
        if !suggested.isEmpty { return suggested }
        guard let mime = head.mimeType, mime.contains("image/") else { return "" }
        let derived = mime.replacingOccurrences(of: "image/", with: "")
        return derived.contains("/") ? "" : derived
    }

}
