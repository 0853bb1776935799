/// A JSON string literal (RFC 8259 section 7) as Foundation's `JSONEncoder` writes it with `.withoutEscapingSlashes`:
/// `"` and `\` escaped, the control characters U+0000 to U+001F as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX` (lower-case
/// hex), every other character (`/`, U+007F, U+2028 included) as its UTF-8 bytes. The rule is swift-foundation's
/// `JSONWriter.serializeStringContents` (Sources/FoundationEssentials/JSON/JSONWriter.swift); JSONSerialization writes
/// the same bytes. Every JSON string nse writes by hand or through `SortedJSONEncoder` goes through here.
package enum JSONStringLiteral {
    /// Appends `text`, quoted and escaped, to `bytes`.
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(quote)
        appendContents(of: text, to: &bytes)
        bytes.append(quote)
    }

    /// Appends `text` escaped, without the quotes.
    package static func appendContents(of text: String, to bytes: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { appendContents($0, to: &bytes) }
        if done == nil {
            var contiguous = text
            contiguous.withUTF8 { appendContents($0, to: &bytes) }
        }
    }

    /// Appends the UTF-8 text in `utf8` escaped, without the quotes: runs that need no escape are copied whole.
    package static func appendContents(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var start = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != quote && byte != backslash {
                index += 1
                continue
            }
            if index > start { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index])) }
            bytes.append(backslash)
            switch byte {
            case quote, backslash: bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            }
            index += 1
            start = index
        }
        if count > start { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<count])) }
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
