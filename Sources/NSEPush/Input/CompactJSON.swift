import Foundation

/// Measures JSON the way APNs does: the bytes of the payload without insignificant whitespace.
///
/// Senders' libraries send compact JSON; a sample file is usually pretty-printed. Removing whitespace outside
/// strings, rather than re-encoding, keeps the sender's own escapes (`\/`, `\u00e9`) and so their byte count.
enum CompactJSON {
    /// The one measure of a payload's size, for every kind of input: the sender's own bytes when the file holds
    /// exactly the payload (a bare payload, an envelope's `payload`), else the compact encoding of what the phone
    /// receives (an FCM message, resolved).
    static func payloadBytes(of payload: JSONValue, writtenAs bytes: Data?) -> Int {
        byteCount(of: bytes ?? payload.compactData())
    }

    static func byteCount(of bytes: Data) -> Int {
        bytes.withUnsafeBytes { byteCount(of: $0) }
    }

    private static func byteCount(of bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                count += 1
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                count += 1
            } else if byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                count += 1
            }
        }
        return count
    }

    /// Where the value of the top-level member `key` lies in `bytes`, a JSON object already known to be valid.
    ///
    /// Lets an envelope's payload be measured on the sender's own bytes. Keys are compared as written, so a key
    /// spelled with escapes is not found (the caller then falls back to re-encoding).
    static func memberRange(of key: String, in bytes: Data) -> Range<Data.Index>? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        let wanted = Array(key.utf8)
        while true {
            scanner.skipWhitespace()
            guard let name = scanner.string() else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            let start = scanner.index
            guard scanner.skipValue() else { return nil }
            if Array(bytes[name]) == wanted { return start..<scanner.index }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ",")) else { return nil }
        }
    }

    private struct Scanner {
        let bytes: Data
        var index: Data.Index

        init(bytes: Data) {
            self.bytes = bytes
            index = bytes.startIndex
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        }

        var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// Skips a string and returns the range of its contents, between the quotes.
        mutating func string() -> Range<Data.Index>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var escaped = false
            while let byte = current {
                index += 1
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    return start..<(index - 1)
                }
            }
            return nil
        }

        mutating func skipValue() -> Bool {
            switch current {
            case UInt8(ascii: "\"")?:
                return string() != nil
            case UInt8(ascii: "{")?, UInt8(ascii: "[")?:
                var depth = 0
                while let byte = current {
                    if byte == UInt8(ascii: "\"") {
                        guard string() != nil else { return false }
                        continue
                    }
                    index += 1
                    if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                    if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 { return true }
                    }
                }
                return false
            case nil:
                return false
            default:
                // A number or a literal: runs to the next delimiter.
                let start = index
                while let byte = current, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                    index += 1
                }
                return index > start
            }
        }
    }
}
