import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// `nse serve`: APNs's and FCM's endpoints and the emulator's control API on one plain port (HTTP/1.1 and h2c),
/// in front of emulated phones that run each accepted push through the same pipeline as `nse process`.
public final class NSEServer: Sendable {
    public struct Configuration: Sendable {
        /// Loopback only by default: the emulator has no authentication worth the name.
        public var host = "127.0.0.1"
        /// 0: a free port (read `NSEServer.port`).
        public var port = 0
        /// The TLS port (ALPN h2 and http/1.1, a certificate signed by the data folder's CA); nil: none, 0: a free one.
        public var tlsPort: Int?
        public var devices: [DeviceEntry] = []
        /// APNs signing keys' public parts: when given, provider tokens must be signed by one.
        public var providerKeys: [ProviderKey] = []
        /// Where the journal and the attachments live; created when missing.
        public var dataDirectory: URL
        /// An unknown APNs token registers a default iPhone instead of BadDeviceToken.
        public var acceptAnyToken = false
        public var pipeline = PhonePipeline.Defaults()
        /// Pushes delivered in one burst share each image's download and decode (`SharedDownloads`); false: every
        /// push downloads its own, as each real phone does.
        public var sharedDownloads = true
        /// Where devices' own extensions (`"extension": {"kind": "folder"}`) are built; nil: `nse extension`'s cache.
        public var extensionCache: URL?
        /// A connection idle this long (nothing read or written) is closed.
        public var idleTimeout: Duration = .seconds(300)
        /// A request must arrive whole within this time of its first byte (HTTP/2: of its stream's opening).
        public var requestTimeout: Duration = .seconds(30)
        /// Connections open at once on each port (nil: `HTTPServer.Limits.defaultMaxConnections`, read after the
        /// open-file limit is raised).
        public var maxConnections: Int?
        /// `--proxy`: the plain port also answers CONNECT and absolute-form requests, emulating the push hosts;
        /// the value says what happens to every other host. nil: not a proxy.
        public var proxy: ProxyOtherHosts?
        /// The clock the emulator's clock starts from (the control API moves it; tests may give their own).
        public var clock: @Sendable () -> Date = { Date() }
        /// FCM expires a registration token inactive this long (Firebase: "Best practices for FCM registration
        /// token management", 270 days); nil: never.
        public var fcmTokenExpiry: TimeInterval? = 270 * 86400
        /// A provider token other than the one a connection uses, sent on it sooner than this after that one's first
        /// use, gets 429 TooManyProviderTokenUpdates (Apple: refresh "no more than once every 20 minutes"); nil: never.
        public var providerTokenUpdateInterval: TimeInterval? = 20 * 60
        /// The most tokens of each kind (APNs tokens, FCM registration tokens, Firebase Installation IDs) that keep
        /// answering as replaced ones after a reinstall or a rotation (APNs 410, FCM UNREGISTERED); past it the oldest
        /// is forgotten and answers as an unknown token (APNs BadDeviceToken, FCM INVALID_ARGUMENT).
        public var retiredTokenLimit = RetiredTokens.defaultLimit

        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    public let port: Int
    /// The TLS port, when one was asked for.
    public let tlsPort: Int?
    /// The local CA's certificate (`<data>/ca.pem`) that clients trust, when TLS is served or the server is a proxy.
    public let caCertificate: URL?
    /// Journal lines a restart could not read (a line cut short by a crash mid-write).
    public let skippedJournalLines: Int
    /// Journal lines the start read: all of them, or with a checkpoint (`<data>/journal.checkpoint`) those after it.
    public let readJournalLines: Int
    /// The start read the journal from a checkpoint on, not from its beginning.
    public let startedFromCheckpoint: Bool
    /// Why the checkpoint the start found was not used (the whole journal was read), when it was not.
    public let checkpointRejected: String?
    /// The journal grows by this much between checkpoints: a restart after a crash reads at most about this much.
    static let checkpointBytes: Int64 = 32 << 20
    private let state: ServeState
    private let servers: [HTTPServer]
    private let group: MultiThreadedEventLoopGroup
    /// Set by the first stop(): a second one must not touch the event loops it shut down.
    private let stopped = Mutex(false)

    private init(servers: [HTTPServer], tls: HTTPServer?, caCertificate: URL?, state: ServeState, read: ServeState.StartRead, group: MultiThreadedEventLoopGroup) {
        port = servers[0].port
        tlsPort = tls?.port
        self.caCertificate = caCertificate
        self.state = state
        skippedJournalLines = read.skipped
        readJournalLines = read.lines
        startedFromCheckpoint = read.fromCheckpoint
        checkpointRejected = read.checkpointRejected
        self.servers = servers + (tls.map { [$0] } ?? [])
        self.group = group
    }

    /// Replays the data folder's journal (re-running pushes that were pending when the last server stopped; from its
    /// checkpoint on when it has one), then listens.
    public static func start(_ configuration: Configuration) async throws(ServeSetupError) -> NSEServer {
        do {
            try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServeSetupError("Cannot create the data folder \(configuration.dataDirectory.path): \(error.localizedDescription).")
        }
        let clock = EmulatorClock(base: configuration.clock)
        let state = try ServeState(
            devices: configuration.devices, dataDirectory: configuration.dataDirectory, clock: clock, fcmTokenExpiry: configuration.fcmTokenExpiry,
            retiredTokenLimit: configuration.retiredTokenLimit)
        let downloads = configuration.sharedDownloads ? SharedDownloads(root: configuration.dataDirectory.appending(path: "downloads", directoryHint: .isDirectory)) : nil
        let deliveries = Deliveries(
            state: state, pipeline: PhonePipeline(defaults: configuration.pipeline, extensionCache: configuration.extensionCache, downloads: downloads))
        let replayed = await state.replay()
        try await state.journalActivityStart()
        await state.checkpointEvery(checkpointBytes)
        deliveries.resume(seqs: replayed.pending)
        let router = Router(
            apns: APNsEndpoint(state: state, deliveries: deliveries, acceptAnyToken: configuration.acceptAnyToken, providerKeys: configuration.providerKeys, clock: { clock.now() },
                tokenUpdates: configuration.providerTokenUpdateInterval.map { ProviderTokenUpdates(minimumInterval: $0) }),
            fcm: FCMEndpoint(state: state, deliveries: deliveries, tokens: try AccessTokens(dataDirectory: configuration.dataDirectory)),
            control: ControlAPI(state: state, fileDevices: configuration.devices, clock: { clock.now() }, faults: Faults(), downloads: downloads),
            page: PhonesPage(state: state))
        let tls = try configuration.tlsPort.map { _ throws(ServeSetupError) in try Self.tlsContext(dataDirectory: configuration.dataDirectory) }
        let proxyCA = try configuration.proxy.map { _ throws(ServeSetupError) in try LocalCA.loadOrCreate(in: configuration.dataDirectory) }
        let maxConnections = configuration.maxConnections ?? HTTPServer.Limits.defaultMaxConnections
        let proxy = configuration.proxy.flatMap { other in proxyCA.map { ProxyService(other: other, ca: $0, maxConnections: maxConnections) } }
        // Two threads: the event loops only parse and write; the pipeline runs elsewhere.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var started: [HTTPServer] = []
        do {
            // Each connection is a descriptor: 10,000 idle clients need more than the 1024 many systems start with.
            OpenFileLimit.raise()
            let limits = HTTPServer.Limits(
                maxConnections: maxConnections,
                idleTimeout: Self.timeAmount(configuration.idleTimeout), requestTimeout: Self.timeAmount(configuration.requestTimeout))
            started.append(try await HTTPServer.start(host: configuration.host, port: configuration.port, group: group, limits: limits, responder: router, proxy: proxy))
            var secure: HTTPServer?
            if let tls, let tlsPort = configuration.tlsPort {
                secure = try await HTTPServer.start(
                    host: configuration.host, port: tlsPort, group: group, tls: tls.context, clientCertificates: tls.trust, limits: limits, responder: router)
            }
            return NSEServer(servers: started, tls: secure, caCertificate: tls?.ca ?? proxyCA?.certificateURL, state: state, read: replayed, group: group)
        } catch {
            for server in started { await server.stop() }
            try? await group.shutdownGracefully()
            throw ServeSetupError("Cannot listen on \(configuration.host): \(error).")
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .nanoseconds(.max) }
        return .nanoseconds(max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000)
    }

    /// TLS with ALPN h2 then http/1.1, the certificate signed by the data folder's CA.
    private static func tlsContext(dataDirectory: URL) throws(ServeSetupError) -> (context: NIOSSLContext, ca: URL, trust: ClientCertificateTrust) {
        let ca = try LocalCA.loadOrCreate(in: dataDirectory)
        let issued = try ca.issueServerCertificate()
        do {
            // APNs's certificate-based trust: a client may present a certificate the local CA issued
            // (`POST /emulator/v1/client-certificates`); another is 403 BadCertificate.
            return (
                try HTTPServer.tlsContext(certificatePEM: issued.certificate, keyPEM: issued.key, clientCertificateCA: ca.certificateURL), ca.certificateURL,
                ClientCertificateTrust(issuer: ca.certificate)
            )
        } catch {
            throw ServeSetupError("Cannot set up TLS: \(error).")
        }
    }

    /// Stops listening and ends the event loops.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        for server in servers { await server.stop() }
        try? await group.shutdownGracefully()
        // The next start reads only what is journaled after this.
        await state.checkpoint()
    }
}

/// Sends each request to its endpoint by path.
struct Router: RequestResponder {
    let apns: APNsEndpoint
    let fcm: FCMEndpoint
    let control: ControlAPI
    let page: PhonesPage

    func respond(to request: ServerRequest) async -> ServerResponse {
        if request.path.hasPrefix(ControlAPI.prefix) {
            return await control.respond(to: request)
        }
        if PhonesPage.handles(request.path) {
            return await page.respond(to: request)
        }
        if FCMEndpoint.handles(request.path) {
            // A planned fault comes before any check, as an overloaded service answers.
            if request.path.hasSuffix(FCMEndpoint.sendSuffix), let fault = control.faults.next(for: .fcm) {
                return Faults.fcmAnswer(fault)
            }
            return await fcm.respond(to: request)
        }
        if request.path.hasPrefix(APNsEndpoint.pathPrefix), let fault = control.faults.next(for: .apns) {
            let given = request.header("apns-id")
            return Faults.apnsAnswer(fault, apnsID: given.flatMap { UUID(uuidString: $0) != nil ? $0 : nil } ?? ServeIDs.uuidString())
        }
        // Every other path is APNs's: it answers an unknown path 404 BadPath.
        return await apns.respond(to: request)
    }
}
