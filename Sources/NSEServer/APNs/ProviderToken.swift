import Crypto
import Foundation

/// APNs token authentication: `authorization: bearer <JWT>`, a JWT with header `{"alg": "ES256", "kid": <key
/// ID>}` and claims `{"iss": <team ID>, "iat": <seconds>}`, refused once older than an hour (Apple:
/// "Establishing a token-based connection to APNs"). With provider keys configured, the `kid` must be one of them,
/// the `iss` its team, and the ES256 signature (JWS: r and s, 32 bytes each) must verify with its public part.
enum ProviderToken {
    /// Apple refuses a token issued more than an hour ago.
    static let maxAge: TimeInterval = 3600

    /// nil when the request's token passes; else APNs's reason.
    static func check(_ authorization: String?, now: Date, keys: [ProviderKey] = []) -> APNsReason? {
        guard let authorization else { return .missingProviderToken }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .missingProviderToken }
        let sections = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard sections.count == 3,
              let header = json(sections[0]), let claims = json(sections[1]), !sections[2].isEmpty,
              header["alg"] as? String == "ES256",
              let kid = header["kid"] as? String, !kid.isEmpty,
              let iss = claims["iss"] as? String, !iss.isEmpty,
              let iat = (claims["iat"] as? NSNumber)?.doubleValue, iat.isFinite else {
            return .invalidProviderToken
        }
        if !keys.isEmpty {
            guard let key = keys.first(where: { $0.keyID == kid }), key.teamID == iss,
                  let publicKey = publicKey(key.publicKey), let signature = bytes(sections[2]),
                  let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
                  publicKey.isValidSignature(ecdsa, for: Data("\(sections[0]).\(sections[1])".utf8)) else {
                return .invalidProviderToken
            }
        }
        if now.timeIntervalSince1970 - iat > maxAge { return .expiredProviderToken }
        return nil
    }

    static func publicKey(_ pem: String) -> P256.Signing.PublicKey? {
        try? P256.Signing.PublicKey(pemRepresentation: pem)
    }

    /// A base64url section decoded as a JSON object; nil when it is not one.
    static func json(_ section: Substring) -> [String: Any]? {
        guard let data = bytes(section) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// A base64url section's bytes (at most 8 KiB of text).
    static func bytes(_ section: Substring) -> Data? {
        guard section.utf8.count <= 8192 else { return nil }
        var text = section.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}
