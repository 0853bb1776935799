import Foundation

/// The image a payload asks for, judged without the network: a request the helper ignores, and, for the
/// commands that do not download (`lint`, `resolve`, `route`), the failures its URL alone foretells. The
/// forecast applies the helper's own rules (`FirebaseImageHelper`), so a download can only confirm it.
enum ImageRequestRules {
    static func check(_ request: ImageRequest, profile: DeviceProfile, forecast: Bool) -> [Diagnostic] {
        switch request.value {
        case .containerNotObject(let value):
            return [.error(.lintImageType, "`fcm_options` is \(value.shortDescription), not a dictionary: Firebase's helper ignores it, so the image the sender asked for never shows. Send \"fcm_options\": {\"image\": \"https://...\"}.")]
        case .notString(let value):
            return [.error(.lintImageType, "`\(request.source)` is \(value.shortDescription), not a string: Firebase's helper ignores it, so the image the sender asked for never shows. Send the image's https URL as a string.")]
        case .url(let text):
            guard forecast else { return [] }
            var findings: [Diagnostic] = []
            guard let url = FirebaseImageRules.parseURL(text, diagnostics: &findings),
                  FirebaseImageRules.passesTransportSecurity(url, profile: profile, diagnostics: &findings) else { return findings }
            let pathExtension = url.pathExtension
            if let type = AttachmentType(fileExtension: pathExtension), !type.isAccepted {
                findings.append(.error(.mediaUnsupportedFormat, "The image URL's path ends in .\(pathExtension), so Firebase's helper saves the file as .\(pathExtension) (unless the server names it otherwise in Content-Disposition): a type iOS does not accept as an attachment (\(type.identifier)), UNError 101, no image. Convert the image to JPEG, PNG or GIF."))
            }
            return findings
        }
    }
}
