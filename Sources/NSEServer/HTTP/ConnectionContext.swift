import Foundation
import SwiftASN1
import Synchronization
import X509

/// What one connection carries from request to request: the TLS client certificate it presented (APNs's
/// certificate-based trust) and the provider token its requests use (APNs counts token updates per connection).
final class ConnectionContext: Sendable {
    /// The client certificate (DER) the TLS handshake received; nil on the plain port or when none was presented.
    let clientCertificate: [UInt8]?
    /// What APNs makes of that certificate apart from its dates, judged once (`ClientCertificateTrust.judge`); its
    /// validity is checked at each request (`certificate(at:)`), since a connection can outlive it.
    let certificate: ClientCertificateTrust.Judgement?
    /// The provider token in use on this connection and when it was first used (the emulator's clock).
    let providerToken = Mutex<(token: String, since: Date)?>(nil)

    init(clientCertificate: [UInt8]? = nil, trust: ClientCertificateTrust? = nil) {
        self.clientCertificate = clientCertificate
        certificate = clientCertificate.map { ClientCertificateTrust.judge($0, trust: trust) }
    }

    /// What APNs makes of the certificate at `now` (the emulator's clock, as for provider tokens): BadCertificate
    /// (`.bad`) outside its validity dates; nil when none was presented.
    func certificate(at now: Date) -> ClientCertificateTrust.Judgement? {
        guard case .valid(_, _, let validity)? = certificate else { return certificate }
        return validity.contains(now) ? certificate : .bad
    }
}

/// The TLS port's trust for APNs client certificates: the local CA that issues them. The handshake takes any
/// certificate a client presents (so APNs's own answer can be given); each request then gets APNs's answer for
/// it: a certificate this CA did not issue, or out of its validity (on the emulator's clock), or naming no topic is
/// 403 BadCertificate.
public struct ClientCertificateTrust: Sendable {
    let issuer: Certificate

    init(issuer: Certificate) {
        self.issuer = issuer
    }

    enum Judgement: Sendable, Equatable {
        /// Issued by the local CA, for this topic and these environments, between these dates (notBefore...notAfter).
        case valid(topic: String, environments: Set<DeviceEntry.APNsEnvironment>, validity: ClosedRange<Date>)
        /// APNs's BadCertificate: not issued by the local CA, out of its validity dates, or naming no topic.
        case bad
    }

    /// Everything but the dates, which `ConnectionContext.certificate(at:)` checks against the emulator's clock at
    /// each request.
    static func judge(_ der: [UInt8], trust: ClientCertificateTrust?) -> Judgement {
        guard let trust else { return .bad }
        guard let certificate = try? Certificate(derEncoded: der) else { return .bad }
        guard certificate.issuer == trust.issuer.subject, trust.issuer.publicKey.isValidSignature(certificate.signature, for: certificate) else {
            return .bad
        }
        // A certificate whose dates are reversed is valid at no time.
        guard certificate.notValidBefore <= certificate.notValidAfter else { return .bad }
        guard let topic = LocalCA.topic(of: certificate) else { return .bad }
        var environments = Set(LocalCA.environmentExtensions.filter { certificate.extensions[oid: $0.oid] != nil }.map(\.environment))
        // Certificates issued before the emulator marked environments are good for both, as the default is.
        if environments.isEmpty { environments = [.development, .production] }
        return .valid(topic: topic, environments: environments, validity: certificate.notValidBefore...certificate.notValidAfter)
    }
}
