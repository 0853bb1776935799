import Foundation
import NSEPush

/// A download an extension will make, known before it runs: the URL and the size limit it will apply.
public struct PlannedDownload: Sendable {
    public var url: URL
    /// The most bytes the extension accepts, given the response's head (as `MediaFetcher.fetch` takes it).
    public var sizeLimit: @Sendable (ResponseHead) -> Int

    public init(url: URL, sizeLimit: @escaping @Sendable (ResponseHead) -> Int) {
        self.url = url
        self.sizeLimit = sizeLimit
    }
}
