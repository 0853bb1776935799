import Foundation

/// A JSON value as a device's `userInfo` holds it: numbers keep whether they were integers, booleans stay booleans.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value as a number, for keys such as `badge` or `relevance-score` that accept any JSON number.
    public var doubleValue: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// The value as iOS's `NSNumber.integerValue` reads a payload number: an integer, or a fraction cut toward
    /// zero. Nil for anything else, including a number outside `Int`'s range (1e19, a 30-digit integer), whose
    /// conversion would trap here and whose reading on a device is undefined.
    public var integerValue: Int? {
        switch self {
        case .int(let number): return number
        case .double(let number): return Int(exactly: number.rounded(.towardZero))
        default: return nil
        }
    }

    /// How the value reads in a message: strings quoted, containers abbreviated.
    public var shortDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return "\"\(text)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON text strictly (RFC 8259), as APNs does.
    public static func parse(_ bytes: Data) throws -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// Compact JSON with sorted keys: the bytes a sender would put on the wire, reproducibly.
    public func compactData() -> Data {
        // Only a NaN or an infinity could fail, and the parser never makes one (a number past Double's range is
        // refused as input).
        (try? SortedJSONEncoder().encode(self)) ?? Data()
    }
}
