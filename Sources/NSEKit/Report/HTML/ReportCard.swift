import Foundation

/// One push as the HTML report draws it: the result and the previews of its image.
public struct ReportCard: Sendable {
    public var result: ProcessResult
    /// 0 passed, 1 failed (with `--strict`, warnings too), 2 unreadable.
    public var exitStatus: Int32
    /// The whole image, as the expanded notification shows it.
    public var image: AttachmentPreview?
    /// The collapsed notification's thumbnail: the clipping rectangle and frame applied; nil when hidden.
    public var thumbnail: AttachmentPreview?
    /// Why the image the phone shows has no preview here (a format the report cannot draw, a read error).
    public var previewProblem: String?

    public init(result: ProcessResult, exitStatus: Int32, image: AttachmentPreview? = nil, thumbnail: AttachmentPreview? = nil, previewProblem: String? = nil) {
        self.result = result
        self.exitStatus = exitStatus
        self.image = image
        self.thumbnail = thumbnail
        self.previewProblem = previewProblem
    }

    /// The thumbnail options of the attachment shown, if any.
    public var thumbnailOptions: ThumbnailOptions? {
        result.content?.attachments.first?.thumbnail
    }

    /// Decodes the first attachment (the one the notification shows) into its previews. Blocking work: call it
    /// off the cooperative pool.
    public static func make(_ push: CompletedPush, limits: ImageDecodeLimits, strict: Bool) -> ReportCard {
        var card = ReportCard(result: push.result, exitStatus: push.result.exitStatus(strict: strict))
        guard let attachment = push.result.content?.attachments.first else { return card }
        guard let file = push.attachmentFiles.first ?? nil else {
            card.previewProblem = "the attachment file was not kept"
            return card
        }
        let format = sniff(file)
        let options = attachment.thumbnail ?? ThumbnailOptions()
        switch AttachmentPreview.make(file: file, format: format, size: .expanded, limits: limits) {
        case .success(let preview): card.image = preview
        case .failure(let problem):
            card.previewProblem = problem.message
            return card
        }
        if options.hidden != true {
            let clip = options.clippingRect
            let thumbnail = AttachmentPreview.make(file: file, format: format, clip: clip, frame: options.frame, size: .thumbnail, limits: limits)
            card.thumbnail = try? thumbnail.get()
        }
        return card
    }

    private static func sniff(_ file: URL) -> MediaFormat {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return .unknown }
        defer { try? handle.close() }
        return MediaFormat.sniff(Array((try? handle.read(upToCount: MediaFormat.sniffLength)) ?? Data()))
    }
}
