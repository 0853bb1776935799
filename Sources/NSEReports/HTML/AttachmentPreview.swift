import Foundation
import CNSE
import NSEMedia
import NSEPush

/// A small re-encoded copy of an attachment for the HTML report, made by `cnse_thumbnail_make` (scaled decoding:
/// its memory depends on the preview's size, not the image's).
package struct AttachmentPreview: Sendable, Hashable {
    /// `image/jpeg`, or `image/png` when the preview has transparency.
    package var mimeType: String
    package var data: Data
    package var width: Int
    package var height: Int
    /// The frame shown (0-based; 0 for still images).
    package var frame: Int

    /// The preview inlined, so the report needs no other file and no network.
    package var dataURI: String {
        "data:\(mimeType);base64,\(data.base64EncodedString())"
    }

    /// Largest preview of the whole image (the expanded notification) and of the thumbnail.
    package struct Size: Sendable, Hashable {
        package var maxWidth: Int
        package var maxHeight: Int
        package var maxBytes: Int

        package static let expanded = Size(maxWidth: 240, maxHeight: 360, maxBytes: 44_000)
        package static let thumbnail = Size(maxWidth: 120, maxHeight: 120, maxBytes: 12_000)
    }

    /// Makes a preview of `file` (a JPEG, PNG or GIF, told by its bytes), cut to `clip` and showing `frame`;
    /// a failure with the decoder's words when it cannot (another format, damage, over one of `limits`: the
    /// image checks' own, so a preview never costs more than validating the image).
    package static func make(
        file: URL, format: MediaFormat, clip: ClippingRect? = nil, frame: Int = 0, size: Size, limits: ImageDecodeLimits
    ) -> Result<AttachmentPreview, PreviewError> {
        let kind: cnse_thumbnail_format
        switch format {
        case .jpeg: kind = CNSE_THUMBNAIL_JPEG
        case .png: kind = CNSE_THUMBNAIL_PNG
        case .gif: kind = CNSE_THUMBNAIL_GIF
        default: return .failure(PreviewError(message: "\(format.displayName) is not an image the report can draw"))
        }
        var request = cnse_thumbnail_request()
        if let clip {
            (request.clip_x, request.clip_y, request.clip_width, request.clip_height) = (clip.x, clip.y, clip.width, clip.height)
        }
        request.frame = UInt32(clamping: max(0, frame))
        request.max_width = UInt32(clamping: size.maxWidth)
        request.max_height = UInt32(clamping: size.maxHeight)
        request.max_bytes = size.maxBytes
        var result = cnse_thumbnail_result()
        var cLimits = limits.cLimits
        let status = file.path.withCString { cnse_thumbnail_make($0, kind, &cLimits, &request, &result) }
        defer { cnse_thumbnail_free(&result) }
        guard status == 0, let bytes = result.data, result.size > 0 else {
            let message = withUnsafeBytes(of: result.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(PreviewError(message: message.isEmpty ? "the image could not be drawn" : message))
        }
        guard result.size <= size.maxBytes else {
            return .failure(PreviewError(message: "the preview would take \(result.size) bytes, over \(size.maxBytes)"))
        }
        return .success(AttachmentPreview(
            mimeType: result.is_png != 0 ? "image/png" : "image/jpeg", data: Data(bytes: bytes, count: result.size),
            width: Int(result.width), height: Int(result.height), frame: Int(result.frame)))
    }
}

/// Why an attachment has no preview in the report.
package struct PreviewError: Error, Sendable, Hashable {
    package var message: String
}
