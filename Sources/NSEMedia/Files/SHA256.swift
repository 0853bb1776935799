import CCrypto

/// SHA-256 with OpenSSL's libcrypto, fed incrementally while an attachment streams to disk.
///
/// Used by one thread at a time (the transfer's); not Sendable.
package final class SHA256 {
    private let context: OpaquePointer?

    package init() {
        context = EVP_MD_CTX_new()
        if let context { EVP_DigestInit_ex(context, EVP_sha256(), nil) }
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    package func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lowercase hex digits; "" if libcrypto could not allocate its context.
    package func finalizeHex() -> String {
        guard let context else { return "" }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return "" }
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
