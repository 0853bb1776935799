import Foundation
import NIOCore
import NIOPosix
import NSEKit

/// `nse serve`: APNs's and FCM's endpoints and the emulator's control API on one plain port (HTTP/1.1 and h2c),
/// in front of emulated phones that run each accepted push through the same pipeline as `nse process`.
public final class NSEServer: Sendable {
    public struct Configuration: Sendable {
        /// Loopback only by default: the emulator has no authentication worth the name.
        public var host = "127.0.0.1"
        /// 0: a free port (read `NSEServer.port`).
        public var port = 0
        public var devices: [DeviceEntry] = []
        /// Where the journal and the attachments live; created when missing.
        public var dataDirectory: URL
        /// An unknown APNs token registers a default iPhone instead of BadDeviceToken.
        public var acceptAnyToken = false
        public var pipeline = PhonePipeline.Defaults()
        /// The clock provider tokens' age is measured by (tests move it).
        public var clock: @Sendable () -> Date = { Date() }

        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    public let port: Int
    /// Journal lines a restart could not read (a line cut short by a crash mid-write).
    public let skippedJournalLines: Int
    private let server: HTTPServer
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, skipped: Int, server: HTTPServer, group: MultiThreadedEventLoopGroup) {
        self.port = port
        skippedJournalLines = skipped
        self.server = server
        self.group = group
    }

    /// Replays the data folder's journal (re-running pushes that were pending when the last server stopped),
    /// then listens.
    public static func start(_ configuration: Configuration) async throws(ServeSetupError) -> NSEServer {
        do {
            try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServeSetupError("Cannot create the data folder \(configuration.dataDirectory.path): \(error.localizedDescription).")
        }
        let state = try ServeState(devices: configuration.devices, dataDirectory: configuration.dataDirectory)
        let deliveries = Deliveries(state: state, pipeline: PhonePipeline(defaults: configuration.pipeline))
        let replayed = try await state.replay()
        for record in replayed.pending {
            await resume(record, state: state, deliveries: deliveries)
        }
        let router = Router(
            apns: APNsEndpoint(state: state, deliveries: deliveries, acceptAnyToken: configuration.acceptAnyToken, clock: configuration.clock),
            fcm: FCMEndpoint(state: state, deliveries: deliveries, tokens: try AccessTokens(dataDirectory: configuration.dataDirectory)),
            control: ControlAPI(state: state, fileDevices: configuration.devices))
        // Two threads: the event loops only parse and write; the pipeline runs elsewhere.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            let server = try await HTTPServer.start(host: configuration.host, port: configuration.port, group: group, responder: router)
            return NSEServer(port: server.port, skipped: replayed.skipped, server: server, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw ServeSetupError("Cannot listen on \(configuration.host):\(configuration.port): \(error).")
        }
    }

    /// A push the journal shows accepted but never delivered: run again from the request it stored.
    private static func resume(_ record: NotificationRecord, state: ServeState, deliveries: Deliveries) async {
        guard let request = ServeState.object(record.request) as? [String: Any],
              let device = await state.device(key: record.device) else { return }
        let headers = (request["headers"] as? [[String]] ?? []).compactMap { pair -> (String, String)? in
            pair.count == 2 && pair[0].hasPrefix("apns-") ? (pair[0], pair[1]) : nil
        }
        let body = Array((request["body"] as? String ?? "").utf8)
        let read = record.service == "apns"
            ? PhonePipeline.apnsPush(headers: Dictionary(headers, uniquingKeysWith: { first, _ in first }), body: body)
            : PhonePipeline.fcmPush(body: body)
        guard case .success(let push) = read else { return }
        deliveries.start(seq: record.seq, generation: await state.currentGeneration, push: push, device: device, input: "\(record.service):\(record.id)")
    }

    /// Stops listening and ends the event loops.
    public func stop() async {
        await server.stop()
        try? await group.shutdownGracefully()
    }
}

/// Sends each request to its endpoint by path.
struct Router: RequestResponder {
    let apns: APNsEndpoint
    let fcm: FCMEndpoint
    let control: ControlAPI

    func respond(to request: ServerRequest) async -> ServerResponse {
        if request.path.hasPrefix(ControlAPI.prefix) {
            return await control.respond(to: request)
        }
        if FCMEndpoint.handles(request.path) {
            return await fcm.respond(to: request)
        }
        // Every other path is APNs's: it answers an unknown path 404 BadPath.
        return await apns.respond(to: request)
    }
}
