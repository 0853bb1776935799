import Foundation
import FoundationNetworking
import NSEMedia

/// A download an SDK's helper makes on its caller's own thread and waits for (OneSignal's "direct download":
/// a data task streamed to a file while the caller spins its run loop). It goes through the same emulated
/// network as the extension's `URLSession` tasks: App Transport Security, the extension's remaining life, host
/// mapping, redirects, the request recorded and a diagnostic when the device would fail it.
package enum StandInDownload {
    package enum Result {
        /// A response (any status), its body in the file asked for.
        case response(HTTPURLResponse, file: URL)
        /// The request failed as on the device; the reason is already recorded on the run.
        case failure(URLError)
        /// Still running when iOS ended the extension: the caller never gets an answer.
        case unfinished
    }

    package static func download(_ url: URL, to file: URL, api: String) -> Result {
        let environment = ExtensionEnvironment.current ?? .standalone()
        switch environment.perform(ExtensionHTTPRequest(url: url, api: api), to: file, cancellation: TransferCancellation()) {
        case .response(let response, _, _): return .response(response, file: file)
        case .failure(let error): return .failure(error)
        case .unfinished: return .unfinished
        }
    }
}
