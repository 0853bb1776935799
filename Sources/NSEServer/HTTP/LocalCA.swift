import Crypto
import Foundation
import NSEMedia
import SwiftASN1
import X509

/// The certificate authority `nse serve` keeps in its data folder (`ca.pem`, its key `ca-key.pem`), made the first
/// time, and the server certificate it signs at every start for the names a backend may send to: loopback, and
/// Apple's and Google's hosts (for a client whose host name cannot change and that is pointed at the emulator by
/// its resolver). Clients trust `ca.pem` (curl `--cacert`, `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, an
/// `ssl_context`).
struct LocalCA {
    static let certificateFile = "ca.pem"
    static let keyFile = "ca-key.pem"
    /// Names the server certificate is valid for.
    static let dnsNames = ["localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com", "fcm.googleapis.com", "oauth2.googleapis.com"]

    let certificate: Certificate
    private let key: P256.Signing.PrivateKey
    let certificateURL: URL

    /// Reads the folder's CA, or makes one (valid ten years) and writes it atomically.
    static func loadOrCreate(in directory: URL) throws(ServeSetupError) -> LocalCA {
        let certificateURL = directory.appendingPathComponent(certificateFile)
        let keyURL = directory.appendingPathComponent(keyFile)
        if FileManager.default.fileExists(atPath: certificateURL.path) {
            do {
                let certificate = try Certificate(pemEncoded: String(contentsOf: certificateURL, encoding: .utf8))
                let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: keyURL, encoding: .utf8))
                return LocalCA(certificate: certificate, key: key, certificateURL: certificateURL)
            } catch {
                throw ServeSetupError("The local CA in \(directory.path) cannot be read (\(error)); remove \(certificateFile) and \(keyFile) to make a new one.")
            }
        }
        do {
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                CommonName("nse serve local CA")
                OrganizationName("nse")
            }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now - 3600, notValidAfter: now + 10 * 365 * 86400, issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: Certificate.PrivateKey(key))
            // The key first: a certificate without its key would be unusable at the next start.
            try AtomicFile.write(Data(key.pemRepresentation.utf8), to: keyURL)
            try AtomicFile.write(Data(try certificate.serializeAsPEM().pemString.utf8), to: certificateURL)
            return LocalCA(certificate: certificate, key: key, certificateURL: certificateURL)
        } catch {
            throw ServeSetupError("Cannot make the local CA in \(directory.path): \(error).")
        }
    }

    /// A server certificate (valid 397 days, the most browsers accept) and its key, both PEM.
    func issueServerCertificate() throws(ServeSetupError) -> (certificate: String, key: String) {
        var names = Self.dnsNames.map { GeneralName.dnsName($0) }
        names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        return try issueServerLeaf(commonName: "nse serve", names: names)
    }

    /// A certificate for one host alone, as the real host's would be: what `--proxy` shows a client that
    /// CONNECTs to a push host.
    func issueHostCertificate(for host: String) throws(ServeSetupError) -> (certificate: String, key: String) {
        try issueServerLeaf(commonName: host, names: [.dnsName(host)])
    }

    private func issueServerLeaf(commonName: String, names: [GeneralName]) throws(ServeSetupError) -> (certificate: String, key: String) {
        do {
            return try issueLeaf(subject: try DistinguishedName { CommonName(commonName) }, days: 397, usage: .serverAuth, names: names)
        } catch {
            throw ServeSetupError("Cannot sign the server certificate: \(error).")
        }
    }

    /// The subject attribute Apple's push certificates name their app by: `UID` (OID 0.9.2342.19200300.100.1.1),
    /// the bundle ID, beside the common name "Apple Push Services: <bundle ID>".
    static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
    static let clientCertificateFolder = "client-certificates"

    /// The extensions Apple's push certificates mark their environments with (Apple's WWDR Certification Practice
    /// Statement; read the same way by apnotic's and SwiftyAPNS's certificate code): development (the sandbox
    /// host) and production. Apple's "Sandbox & Production" certificates carry both. The value is an ASN.1 NULL.
    static let environmentExtensions: [(oid: ASN1ObjectIdentifier, environment: DeviceEntry.APNsEnvironment)] = [
        ([1, 2, 840, 113_635, 100, 6, 3, 1], .development), ([1, 2, 840, 113_635, 100, 6, 3, 2], .production),
    ]

    /// A client certificate for APNs's certificate-based trust, for `topic` (valid a year from `now`, the emulator's
    /// clock, which judges it too) and `environments`, and its key, both PEM: a TLS connection that presents it may
    /// send to that topic without a provider token, to those environments' hosts and devices.
    func issueClientCertificate(
        topic: String, environments: Set<DeviceEntry.APNsEnvironment> = [.development, .production], now: Date = Date()
    ) throws(ServeSetupError) -> (certificate: String, key: String) {
        do {
            let subject = DistinguishedName([
                RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: Self.userID, utf8String: topic)),
                RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(topic)")),
            ])
            let marks = Self.environmentExtensions.filter { environments.contains($0.environment) }.map {
                Certificate.Extension(oid: $0.oid, critical: false, value: [0x05, 0x00])
            }
            return try issueLeaf(subject: subject, days: 365, usage: .clientAuth, names: nil, more: marks, now: now)
        } catch {
            throw ServeSetupError("Cannot sign the client certificate: \(error).")
        }
    }

    /// A certificate signed by this CA for a new P-256 key, valid from an hour before `now` for `days`, and the key,
    /// both PEM.
    private func issueLeaf(
        subject: DistinguishedName, days: Int, usage: ExtendedKeyUsage.Usage, names: [GeneralName]?, more: [Certificate.Extension] = [],
        now: Date = Date()
    ) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + TimeInterval(days) * 86400, issuer: self.certificate.subject,
            subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage])
                if let names { SubjectAlternativeNames(names) }
                for mark in more { mark }
            },
            issuerPrivateKey: Certificate.PrivateKey(self.key))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    /// The APNs topic a client certificate is for: its subject's UID; nil when it has none.
    static func topic(of certificate: Certificate) -> String? {
        for name in certificate.subject {
            for attribute in name where attribute.type == userID {
                if let topic = String(attribute.value), !topic.isEmpty { return topic }
            }
        }
        return nil
    }
}
