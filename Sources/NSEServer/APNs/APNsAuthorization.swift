import Foundation
import Synchronization

/// How APNs authorizes a request (Apple: "Establishing a token-based connection to APNs", "Establishing a
/// certificate-based connection to APNs"; device-behaviour.md section 8). A request that carries
/// `authorization: bearer <JWT>` is token-authenticated, whatever its connection: the token's checks apply and
/// `apns-topic` is required (MissingTopic). A request without one, on a TLS connection that presented a client
/// certificate, is authorized by the certificate: one the local CA did not issue, out of its validity or naming no
/// topic is 403 BadCertificate; one for the other environment than the host's (or, on a host of neither, than the
/// device's) is 403 BadCertificateEnvironment; `apns-topic` defaults to the certificate's topic, and another topic
/// (other than it with a push type's suffix) is 400 TopicDisallowed.
extension APNsEndpoint {
    enum Authorization {
        /// Authorized for this topic; by a client certificate good for these environments, or by a token (nil).
        case topic(String, certificateEnvironments: Set<DeviceEntry.APNsEnvironment>?)
        case refused(APNsReason)
    }

    /// The request's topic once authorized, or APNs's reason for refusing it.
    func authorize(_ request: ServerRequest) -> Authorization {
        let authorization = request.header("authorization")
        let now = clock()
        // The certificate's dates are read on the emulator's clock at every request: a connection can outlive them.
        if authorization == nil, let certificate = request.connection?.certificate(at: now) {
            guard case .valid(let certificateTopic, let environments, _) = certificate else { return .refused(.badCertificate) }
            if let host = Self.environment(host: request.header("host")), !environments.contains(host) {
                return .refused(.badCertificateEnvironment)
            }
            let topic = request.header("apns-topic").flatMap { $0.isEmpty ? nil : $0 } ?? certificateTopic
            guard topic == certificateTopic || topic.hasPrefix(certificateTopic + ".") else { return .refused(.topicDisallowed) }
            return .topic(topic, certificateEnvironments: environments)
        }
        if let reason = checkProviderToken(authorization) { return .refused(reason) }
        if let tokenUpdates, let connection = request.connection, let authorization,
           let reason = tokenUpdates.check(authorization, on: connection, now: now) {
            return .refused(reason)
        }
        guard let topic = request.header("apns-topic"), !topic.isEmpty else { return .refused(.missingTopic) }
        return .topic(topic, certificateEnvironments: nil)
    }
}

/// TooManyProviderTokenUpdates: Apple asks providers to refresh a token "no more than once every 20 minutes" and
/// answers 429 when they do it more often. Where APNs counts is not documented; an Apple engineer on the developer
/// forums (threads 674772 and 675879) says changing the token on the same open connection triggers it, and that the
/// connection stays refused until enough time has passed. So the emulator counts per connection: a token other
/// than the one the connection uses, sent sooner than `minimumInterval` (the emulator's clock) after that one was
/// first used, is refused, and the connection keeps its token; after the interval the new token replaces it. The
/// interval is an assumption a user sets (`nse serve --provider-token-updates`).
struct ProviderTokenUpdates: Sendable {
    let minimumInterval: TimeInterval

    /// nil when the connection may use `token` now; else TooManyProviderTokenUpdates.
    func check(_ token: String, on connection: ConnectionContext, now: Date) -> APNsReason? {
        connection.providerToken.withLock { current in
            guard let inUse = current else {
                current = (token, now)
                return nil
            }
            if inUse.token == token { return nil }
            guard now.timeIntervalSince(inUse.since) >= minimumInterval else { return .tooManyProviderTokenUpdates }
            current = (token, now)
            return nil
        }
    }
}
