import Foundation
import Synchronization

/// What one connection carries from request to request: the TLS client certificate it presented (APNs's
/// certificate-based trust) and the provider token its requests use (APNs counts token updates per connection).
final class ConnectionContext: Sendable {
    /// The client certificate (DER) the TLS handshake verified against the local CA; nil on the plain port or
    /// when none was presented.
    let clientCertificate: [UInt8]?
    /// The APNs topic the client certificate is for, read once.
    let certificateTopic: String?
    /// The provider token in use on this connection and when it was first used (the emulator's clock).
    let providerToken = Mutex<(token: String, since: Date)?>(nil)

    init(clientCertificate: [UInt8]? = nil) {
        self.clientCertificate = clientCertificate
        certificateTopic = clientCertificate.flatMap(LocalCA.topic(ofClientCertificate:))
    }
}
