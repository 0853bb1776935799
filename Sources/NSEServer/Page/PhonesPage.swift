import Foundation
import NSEConcurrency

/// `nse serve`'s page of phones (docs/serve.md, "The phones page"): `GET /` and its assets under `/phones/`, all
/// built into the binary (no file to install, nothing fetched from elsewhere), and each notification drawn by the
/// HTML report's own markup (`PhoneNotificationViews`). The page reads and changes everything else through the
/// control API, the events stream and the FCM endpoint, as any client does.
struct PhonesPage: Sendable {
    let state: ServeState

    static let assetPrefix = "/phones/"

    /// Whether `path` is the page's: `/` or under `/phones/`.
    static func handles(_ path: String) -> Bool {
        path == "/" || path.hasPrefix(assetPrefix)
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        let rest = request.path == "/" ? "" : String(request.path.dropFirst(Self.assetPrefix.count))
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let known = request.path == "/" || ["page.css", "page.js"].contains(rest) || (parts.count == 2 && parts[0] == "notifications")
        guard known else { return ControlAPI.error(404, "No such page: \(request.path). The phones page is at /.") }
        guard request.method == "GET" else {
            return ControlAPI.error(405, "\(request.method) is not allowed on \(request.path): the page is read with GET.")
        }
        switch rest {
        case "": return Self.asset(PhonesPageAssets.html, type: "text/html; charset=utf-8")
        case "page.css": return Self.asset(PhonesPageAssets.style, type: "text/css; charset=utf-8")
        case "page.js": return Self.asset(PhonesPageAssets.script, type: "text/javascript; charset=utf-8")
        default: return await notification(parts[1])
        }
    }

    private static func asset(_ text: String, type: String) -> ServerResponse {
        // The page is small and changes with the binary: no caching, so a new build is seen at the next load.
        ServerResponse(status: 200, headers: [(name: "content-type", value: type), (name: "cache-control", value: "no-store")], body: Array(text.utf8))
    }

    /// `GET /phones/notifications/<seq>`: a delivered notification as the page draws it (`PhoneNotificationViews`).
    private func notification(_ given: String) async -> ServerResponse {
        guard let seq = Int(given), seq > 0 else { return ControlAPI.error(400, "The notification's number (seq) must be a positive whole number.") }
        guard let record = await state.record(seq: seq) else { return ControlAPI.error(404, "No notification has the seq \(seq).") }
        guard let delivery = record.delivery else { return ControlAPI.error(409, "The notification \(seq) is still pending: its delivery comes as an event.") }
        let device = await state.device(key: record.device)
        // Decoding the images into previews is blocking work: it leaves the cooperative pool.
        let views = await BlockingExecutor.shared.run("serve.page.card") {
            PhoneNotificationViews.make(delivery: delivery, device: device)
        }
        guard let views else { return ControlAPI.error(500, "The notification \(seq)'s delivery could not be read back from the journal.") }
        return .json(200, ["seq": seq, "views": views.views, "hiddenViews": views.hiddenViews.map { $0 as Any } ?? NSNull(), "card": views.card])
    }
}
