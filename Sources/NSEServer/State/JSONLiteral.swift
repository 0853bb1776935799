/// A JSON string literal written by hand (RFC 8259 section 7): `"` and `\` escaped, control characters as `\b`,
/// `\f`, `\n`, `\r`, `\t` or `\u00XX`, every other character as its UTF-8 bytes. That is what JSONSerialization
/// writes (without escaping slashes), byte for byte: PhoneDisplayTests compare the two. The journal's lines and
/// the phone's JSON are written with it; a JSONEncoder per string cost more than the rest of journaling a push.
enum JSONLiteral {
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: bytes.append(0x5C); bytes.append(byte)
            case 0x08: bytes.append(0x5C); bytes.append(0x62)
            case 0x0C: bytes.append(0x5C); bytes.append(0x66)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0x00..<0x20:
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
