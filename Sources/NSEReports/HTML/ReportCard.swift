import Foundation
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

    package init(result: ProcessResult, exitStatus: Int32, image: AttachmentPreview? = nil, thumbnail: AttachmentPreview? = nil, previewProblem: String? = nil) {
        self.result = result
        self.exitStatus = exitStatus
        self.image = image
        self.thumbnail = thumbnail
        self.previewProblem = previewProblem
    }

    /// The thumbnail options of the attachment shown, if any.
    package var thumbnailOptions: ThumbnailOptions? {
        result.content?.attachments.first?.thumbnail
    }

    /// Decodes the first attachment (the one the notification shows) into its previews. Blocking work: call it
    /// off the cooperative pool.
    package static func make(_ push: CompletedPush, limits: ImageDecodeLimits, strict: Bool) -> ReportCard {
        var card = ReportCard(result: push.result, exitStatus: push.result.exitStatus(strict: strict))
        guard let attachment = push.result.content?.attachments.first else { return card }
        guard let file = push.attachmentFiles.first ?? nil else {
            card.previewProblem = "the attachment file was not kept"
            return card
        }
        card.use(Previews.make(attachment, file: file, limits: limits))
        return card
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

        package static func key(_ attachment: Attachment) -> Key? {
            attachment.sha256.isEmpty ? nil : Key(sha256: attachment.sha256, thumbnail: attachment.thumbnail)
        }

        package static func make(_ attachment: Attachment, file: URL, limits: ImageDecodeLimits) -> Previews {
            var previews = Previews()
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                previews.problem = "the attachment file \(file.lastPathComponent) could not be read"
                return previews
            }
            let format = sniff(file)
            let options = attachment.thumbnail ?? ThumbnailOptions()
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
