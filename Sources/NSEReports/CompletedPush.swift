import Foundation
import NSEMedia
import NSEPipeline
import NSEPush

/// One push's finished result, handed to what renders whole runs (the HTML report, JSON Lines) while its
/// attachment files still exist, even when they are not kept (no `--out`).
package struct CompletedPush: Sendable {
    /// The push's place in the input order.
    package var index: Int
    /// The result as saved and printed: `attachments[].file` is set only when the attachment is kept (`--out`).
    package var result: ProcessResult
    /// Where each attachment's bytes are during the call, parallel to `result.content.attachments`; nil when
    /// the attachment was not saved at all.
    package var attachmentFiles: [URL?]
    /// Where the image the Android notification shows is during the call (`result.android.image`); nil when it
    /// was not saved.
    package var androidImageFile: URL?

    package init(index: Int, result: ProcessResult, attachmentFiles: [URL?], androidImageFile: URL? = nil) {
        self.index = index
        self.result = result
        self.attachmentFiles = attachmentFiles
        self.androidImageFile = androidImageFile
    }

    /// Splits a result whose attachments were saved into a staging folder (`kept`: they stay under `--out`):
    /// the files are noted, and their paths dropped from the result unless kept.
    package init(index: Int, staged result: ProcessResult, kept: Bool) {
        var saved = result
        let files = result.content?.attachments.map { $0.file.map { URL(fileURLWithPath: $0) } } ?? []
        let androidImage = result.android?.image?.file.map { URL(fileURLWithPath: $0) }
        if !kept, var content = saved.content {
            for position in content.attachments.indices { content.attachments[position].file = nil }
            saved.content = content
        }
        if !kept { saved.android?.image?.file = nil }
        self.init(index: index, result: saved, attachmentFiles: files, androidImageFile: androidImage)
    }
}
