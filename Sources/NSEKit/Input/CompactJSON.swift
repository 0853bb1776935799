import Foundation

/// Measures JSON the way APNs does: the bytes of the payload without insignificant whitespace.
///
/// Senders' libraries send compact JSON; a sample file is usually pretty-printed. Removing whitespace outside
/// strings, rather than re-encoding, keeps the sender's own escapes (`\/`, `\u00e9`) and so their byte count.
enum CompactJSON {
    static func byteCount(of bytes: Data) -> Int {
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
}
