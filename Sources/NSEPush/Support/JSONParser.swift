/// A strict RFC 8259 parser: APNs refuses what Foundation's lenient parser lets through (trailing commas).
struct JSONParser {
    struct SyntaxError: Error, Sendable, CustomStringConvertible {
        var line: Int
        var column: Int
        var reason: String

        var description: String { "line \(line), column \(column): \(reason)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// Deeper nesting is refused rather than risking the stack on a hostile file.
    private static let maxDepth = 512

    static func parse<Bytes: Sequence<UInt8>>(_ input: Bytes) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(input))
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private func error(_ reason: String) -> SyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SyntaxError(line: line, column: column, reason: reason)
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
        for byte in literal.utf8 {
            guard current == byte else { throw error("invalid literal; expected \(literal)") }
            index += 1
        }
        return value
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{")?: return try parseObject()
        case UInt8(ascii: "[")?: return try parseArray()
        case UInt8(ascii: "\"")?: return .string(try parseString())
        case UInt8(ascii: "t")?: return try expect("true", .bool(true))
        case UInt8(ascii: "f")?: return try expect("false", .bool(false))
        case UInt8(ascii: "n")?: return try expect("null", .null)
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            return try parseNumber()
        case nil: throw error("unexpected end of file")
        default: throw error("unexpected character")
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested more than \(Self.maxDepth) levels deep") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error(current == UInt8(ascii: "}") ? "trailing comma before }" : "expected a key in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected : after the key") }
            index += 1
            members[key] = try parseValue()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return .object(members)
            default: throw error("expected , or } in the object")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw error("trailing comma before ]") }
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(items)
            default: throw error("expected , or ] in the array")
            }
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        // JSON text is UTF-8 (RFC 8259, 8.1): a string with bytes that are not is refused, as a strict parser
        // (APNs', iOS's JSONSerialization) refuses it, rather than read with U+FFFD in their place.
        func text(_ parser: JSONParser, upTo end: Int) throws(SyntaxError) -> String {
            guard let text = String(validating: parser.bytes[run..<end], as: UTF8.self) else {
                throw parser.error("a string that is not valid UTF-8; JSON text must be UTF-8")
            }
            return text
        }
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                let last = try text(self, upTo: index)
                index += 1
                // No escape before the end (nearly every string): the text is the run itself, made once.
                guard !scalars.isEmpty else { return last }
                scalars.append(contentsOf: last.unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: try text(self, upTo: index).unicodeScalars)
                index += 1
                scalars.append(try parseEscape())
                run = index
            case 0x00..<0x20:
                throw error("control character in a string; escape it")
            default:
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            if (0xD800..<0xDC00).contains(unit), current == UInt8(ascii: "\\"),
               index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
                index += 2
                let low = try parseHex4()
                if (0xDC00..<0xE000).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) {
                    return scalar
                }
            }
            // A lone surrogate becomes U+FFFD, as Foundation does.
            return Unicode.Scalar(unit) ?? "\u{FFFD}"
        default:
            throw error("invalid escape sequence")
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else { throw error("invalid \\u escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw error("invalid number") }
        index += 1
        if first == UInt8(ascii: "0"), let next = current, Self.isDigit(next) { throw error("leading zero in a number") }
        skipDigits()
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = current, Self.isDigit(digit) else { throw error("digit expected after the decimal point") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, Self.isDigit(digit) else { throw error("digit expected in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw error("number out of range") }
        return .double(double)
    }

    private mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
