import NSEPush

/// A JSON string literal written by hand: NSEPush's `JSONStringLiteral`, the one escaper of the code base (what
/// JSONEncoder and JSONSerialization write without escaping slashes, byte for byte: PhoneDisplayTests compare them).
/// The journal's lines and the phone's JSON are written with it; a JSONEncoder per string cost more than the rest of
/// journaling a push.
enum JSONLiteral {
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        JSONStringLiteral.append(text, to: &bytes)
    }
}
