import FoundationEssentials
import NSEPush

/// What iOS does with the extension's attachments after the content handler is called: it checks each file's
/// content and drops any it cannot use, showing the notification without it (Apple: UNNotificationAttachment).
package enum SystemValidation {
    /// Returns the attachments the phone keeps, with their decoded size, and what was found on the way.
    package static func validate(_ staged: [StagedAttachment], profile: DeviceProfile) -> (kept: [Attachment], diagnostics: [Diagnostic]) {
        var kept: [Attachment] = []
        var diagnostics: [Diagnostic] = []
        for item in staged {
            if let attachment = validate(item, profile: profile, diagnostics: &diagnostics) {
                kept.append(attachment)
            }
        }
        return (kept, diagnostics)
    }

    private static func validate(_ item: StagedAttachment, profile: DeviceProfile, diagnostics: inout [Diagnostic]) -> Attachment? {
        var attachment = item.attachment
        let declared = item.attachmentType
        let format = item.format
        let name = item.localFile.lastPathComponent

        if let mime = item.mimeType, mime.hasPrefix("image/"), !format.imageMIMETypes.isEmpty,
           !format.imageMIMETypes.contains(mime) {
            diagnostics.append(.warning(.mediaTypeMismatch, "The server labels the file \(mime) but its bytes are \(format.displayName). Firebase's helper trusts the label when the URL has no extension; fix the CDN's Content-Type."))
        }
        if !format.matchingTypeIdentifiers.contains(declared.identifier) {
            let otherImage = declared.category == .image && [.jpeg, .png, .gif].contains(format)
            if otherImage {
                // ImageIO decodes by content, so a PNG named .jpg most likely still shows.
                diagnostics.append(.warning(.mediaTypeMismatch, "\(name) is declared \(declared.identifier) by its extension but holds \(format.displayName). iOS decodes images by content, so it probably shows; name it .\(format.conventionalExtension ?? "") to be sure."))
            } else {
                diagnostics.append(.error(.mediaTypeMismatch, "\(name) is declared \(declared.identifier) by its extension but holds \(format.displayName). The system's content check fails and the notification shows without the attachment. Serve a real \(declared.identifier) file at that URL."))
                return nil
            }
        }
        guard declared.category == .image else { return attachment }
        do {
            guard let image = try ImageDecoder.decode(item.localFile, as: format, limits: profile.imageLimits) else {
                return attachment
            }
            attachment.width = image.width
            attachment.height = image.height
            attachment.frames = image.frames
            if let warning = image.warning {
                diagnostics.append(.warning(.mediaCorrupt, "\(name) decodes with damage (\(warning)). iOS shows what decodes, possibly with a grey or missing part. Re-export the image."))
            }
            return attachment
        } catch {
            switch error {
            case .corrupt(let detail):
                diagnostics.append(.error(.mediaCorrupt, "\(name) does not decode as \(format.displayName) (\(detail)). The system drops the attachment and the notification shows without it. Re-export the image."))
            case .tooManyPixels(let width, let height, let limit):
                diagnostics.append(.error(.mediaTooManyPixels, "\(name) is \(width) x \(height) pixels, more than the \(limit) assumed to display (--max-pixels); images this big fail to show or exhaust the memory of the process decoding them. Resize it."))
            case .overLimit(let kind, _, let limit, let detail):
                diagnostics.append(.error(kind.code, "\(name) was not fully checked: \(detail). \(kind.explanation(limit: limit, platform: "iOS")). nse counts the attachment as not shown."))
            case .unreadable(let detail):
                diagnostics.append(.error(.mediaNotSaved, "\(name) could not be read back for validation: \(detail)."))
            }
            return nil
        }
    }
}
