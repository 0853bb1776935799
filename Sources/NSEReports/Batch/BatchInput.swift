import Foundation

/// One push file a batch processes, or a folder it could not list.
public struct BatchInput: Sendable, Hashable {
    /// The file, as a path relative to the working directory when the root was given that way.
    public var file: URL
    /// Where its result goes under the output folder: the file's path relative to its root, extension kept
    /// (`campaign/fr/promo.json`), so `promo.json` and `promo.apns`, or `promo.json` and a folder `promo/`,
    /// never share a result folder.
    public var outputPath: String
    /// Why the folder at `file` could not be listed; nil for a push file.
    public var listingError: String?
    /// Why the push file at `file` is not read: a name that is not UTF-8, a FIFO or device, a broken link.
    /// Such entries are reported as `input.unreadable` results, so nothing a batch finds goes unmentioned.
    public var unreadableReason: String?
    /// How nse itself crashed on this push in an earlier attempt of the same batch ("SIGILL"): it is reported as an
    /// `internal.crash` result instead of being processed again, so one push cannot stop the rest.
    public var crashedWith: String?

    public init(file: URL, outputPath: String, listingError: String? = nil, unreadableReason: String? = nil) {
        self.file = file
        self.outputPath = outputPath
        self.listingError = listingError
        self.unreadableReason = unreadableReason
    }

    /// The path shown in results and reports.
    public var displayPath: String { file.relativePath }
}
