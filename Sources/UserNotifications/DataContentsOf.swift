import Foundation
import NSEMedia

extension Data {
    /// `Data(contentsOf:)` as an extension calls it. On Linux, Foundation's returns nothing for an http(s) URL
    /// without making a request; in a file that imports UserNotifications this overload is chosen instead (it
    /// is more specific than Foundation's, which has a defaulted `options:`). Remote URLs are loaded
    /// synchronously through the emulated device network (ATS, the extension's remaining time, host mapping),
    /// recorded like any request, and held in memory; file URLs read as before.
    public init(contentsOf url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            try self.init(contentsOf: url, options: [])
            return
        }
        let environment = ExtensionEnvironment.current ?? .standalone()
        let request = ExtensionHTTPRequest(url: url, api: "Data(contentsOf:)")
        switch environment.perform(request, to: nil, cancellation: TransferCancellation()) {
        case .response(_, let body, _):
            // Held by the extension from here on; it stays charged to the run (the harness cannot see it freed).
            self = body ?? Data()
        case .failure(let error):
            // Foundation wraps the loading error in a Cocoa read error, as on iOS.
            throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        case .unfinished:
            throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url])
        }
    }
}
