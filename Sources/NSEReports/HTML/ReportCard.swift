import Foundation
import NSEMedia
import NSEPipeline
import NSEPush

/// One push as the HTML report draws it: the result and the previews of its image.
package struct ReportCard: Sendable {
    package var result: ProcessResult
    /// 0 passed, 1 failed (with `--strict`, warnings too), 2 unreadable.
    package var exitStatus: Int32
    /// The whole image, as the expanded notification shows it.
    package var image: AttachmentPreview?
    /// The collapsed notification's thumbnail: the clipping rectangle and frame applied; nil when hidden.
    package var thumbnail: AttachmentPreview?
    /// Why the image the phone shows has no preview here (a format the report cannot draw, a read error).
    package var previewProblem: String?
    /// The image the Android notification shows (`result.android.image`): `image` the expanded notification's
    /// big picture, `thumbnail` the collapsed one's large icon; nil when it shows none.
    package var android: Previews?

    package init(
        result: ProcessResult, exitStatus: Int32, image: AttachmentPreview? = nil, thumbnail: AttachmentPreview? = nil, previewProblem: String? = nil,
        android: Previews? = nil
    ) {
        self.result = result
        self.exitStatus = exitStatus
        self.image = image
        self.thumbnail = thumbnail
        self.previewProblem = previewProblem
        self.android = android
    }

    /// The thumbnail options of the attachment shown, if any.
    package var thumbnailOptions: ThumbnailOptions? {
        result.content?.attachments.first?.thumbnail
    }

    /// Decodes the first attachment (the one the notification shows) and the Android image into their previews.
    /// Blocking work: call it off the cooperative pool.
    package static func make(_ push: CompletedPush, limits: ImageDecodeLimits, strict: Bool) -> ReportCard {
        var card = ReportCard(result: push.result, exitStatus: push.result.exitStatus(strict: strict))
        card.android = androidPreviews(push.result.android, file: push.androidImageFile, limits: limits)
        guard let attachment = push.result.content?.attachments.first else { return card }
        guard let file = push.attachmentFiles.first ?? nil else {
            card.previewProblem = "the attachment file was not kept"
            return card
        }
        card.use(Previews.make(attachment, file: file, limits: limits))
        return card
    }

    /// The previews of the image the Android notification shows, from its kept file; nil when it shows none.
    /// Blocking work: call it off the cooperative pool.
    package static func androidPreviews(_ android: AndroidResult?, file: URL?, limits: ImageDecodeLimits) -> Previews? {
        guard let android, android.imageShown, android.image != nil else { return nil }
        guard let file else { return Previews(problem: "the image file was not kept") }
        return Previews.make(file: file, thumbnail: nil, limits: limits)
    }

    /// The previews of one attachment: the same file with the same thumbnail options always gives the same ones,
    /// so a run may reuse them (`key`).
    package struct Previews: Sendable {
        package var image: AttachmentPreview?
        package var thumbnail: AttachmentPreview?
        package var problem: String?

        /// What the previews depend on; nil when the file's digest is unknown.
        package struct Key: Sendable, Hashable {
            var sha256: String
            var thumbnail: ThumbnailOptions?
        }

        package init(image: AttachmentPreview? = nil, thumbnail: AttachmentPreview? = nil, problem: String? = nil) {
            self.image = image
            self.thumbnail = thumbnail
            self.problem = problem
        }

        package static func key(_ attachment: Attachment) -> Key? {
            attachment.sha256.isEmpty ? nil : Key(sha256: attachment.sha256, thumbnail: attachment.thumbnail)
        }

        /// The Android image's: the whole image for both (Android crops it as it draws it), so an iOS attachment
        /// of the same file without thumbnail options shares them.
        package static func key(_ image: AndroidImage) -> Key? {
            image.sha256.isEmpty ? nil : Key(sha256: image.sha256, thumbnail: nil)
        }

        package static func make(_ attachment: Attachment, file: URL, limits: ImageDecodeLimits) -> Previews {
            make(file: file, thumbnail: attachment.thumbnail, limits: limits)
        }

        /// The whole image and the thumbnail (`thumbnail`'s clipping rectangle and frame applied; none when hidden).
        package static func make(file: URL, thumbnail: ThumbnailOptions?, limits: ImageDecodeLimits) -> Previews {
            var previews = Previews()
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                previews.problem = "the attachment file \(file.lastPathComponent) could not be read"
                return previews
            }
            let format = sniff(file)
            let options = thumbnail ?? ThumbnailOptions()
            switch AttachmentPreview.make(file: file, format: format, size: .expanded, limits: limits) {
            case .success(let preview): previews.image = preview
            case .failure(let problem):
                previews.problem = problem.message
                return previews
            }
            if options.hidden != true {
                let thumbnail = AttachmentPreview.make(
                    file: file, format: format, clip: options.clippingRect, frame: options.frame, size: .thumbnail, limits: limits)
                previews.thumbnail = try? thumbnail.get()
            }
            return previews
        }
    }

    package mutating func use(_ previews: Previews) {
        image = previews.image
        thumbnail = previews.thumbnail
        previewProblem = previews.problem
    }

    private static func sniff(_ file: URL) -> MediaFormat {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return .unknown }
        defer { try? handle.close() }
        return MediaFormat.sniff(Array((try? handle.read(upToCount: MediaFormat.sniffLength)) ?? Data()))
    }
}
