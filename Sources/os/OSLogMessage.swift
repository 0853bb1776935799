import Foundation

/// How much of an interpolated value the log shows outside a debugging session. The run's log shows every
/// value, as Xcode's console does while debugging: privacy is accepted, as on iOS, and not applied.
public struct OSLogPrivacy: Sendable, Equatable {
    public enum Mask: Sendable, Equatable {
        case hash, none
    }

    enum Level: Sendable, Equatable {
        case automatic, visible, hidden, sensitive
    }

    let level: Level
    let mask: Mask

    public static let auto = OSLogPrivacy(level: .automatic, mask: .none)
    public static let `public` = OSLogPrivacy(level: .visible, mask: .none)
    public static let `private` = OSLogPrivacy(level: .hidden, mask: .none)
    public static let sensitive = OSLogPrivacy(level: .sensitive, mask: .none)

    public static func auto(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(level: .automatic, mask: mask) }
    public static func `private`(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(level: .hidden, mask: mask) }
    public static func sensitive(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(level: .sensitive, mask: mask) }
}

/// Column alignment of an interpolated value.
public struct OSLogStringAlignment: Sendable {
    let columns: Int
    let left: Bool

    public static let none = OSLogStringAlignment(columns: 0, left: false)
    public static func right(columns: @autoclosure () -> Int) -> OSLogStringAlignment {
        OSLogStringAlignment(columns: columns(), left: false)
    }
    public static func left(columns: @autoclosure () -> Int) -> OSLogStringAlignment {
        OSLogStringAlignment(columns: columns(), left: true)
    }

    func apply(_ text: String) -> String {
        let padding = String(repeating: " ", count: max(0, columns - text.count))
        return left ? text + padding : padding + text
    }
}

/// How an interpolated integer is written.
public struct OSLogIntegerFormatting: Sendable {
    let radix: Int
    let prefix: Bool
    let uppercase: Bool
    let explicitPositiveSign: Bool
    let minDigits: Int

    public static let decimal = OSLogIntegerFormatting(radix: 10, prefix: false, uppercase: false, explicitPositiveSign: false, minDigits: 0)
    public static let hex = OSLogIntegerFormatting(radix: 16, prefix: false, uppercase: false, explicitPositiveSign: false, minDigits: 0)
    public static let octal = OSLogIntegerFormatting(radix: 8, prefix: false, uppercase: false, explicitPositiveSign: false, minDigits: 0)

    public static func decimal(explicitPositiveSign: Bool = false, minDigits: @autoclosure () -> Int = 0) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 10, prefix: false, uppercase: false, explicitPositiveSign: explicitPositiveSign, minDigits: minDigits())
    }
    public static func hex(explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: @autoclosure () -> Int = 0) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 16, prefix: includePrefix, uppercase: uppercase, explicitPositiveSign: explicitPositiveSign, minDigits: minDigits())
    }
    public static func octal(explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: @autoclosure () -> Int = 0) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 8, prefix: includePrefix, uppercase: uppercase, explicitPositiveSign: explicitPositiveSign, minDigits: minDigits())
    }

    func format<T: BinaryInteger>(_ number: T) -> String {
        var digits = String(number.magnitude, radix: radix, uppercase: uppercase)
        if digits.count < minDigits { digits = String(repeating: "0", count: minDigits - digits.count) + digits }
        if prefix { digits = (radix == 16 ? "0x" : "0") + digits }
        if number < 0 { return "-" + digits }
        return explicitPositiveSign ? "+" + digits : digits
    }
}

/// How an interpolated floating-point number is written.
public struct OSLogFloatFormatting: Sendable {
    let specifier: String
    let precision: Int?
    let explicitPositiveSign: Bool

    public static let fixed = OSLogFloatFormatting(specifier: "f", precision: nil, explicitPositiveSign: false)
    public static let exponential = OSLogFloatFormatting(specifier: "e", precision: nil, explicitPositiveSign: false)
    public static let hybrid = OSLogFloatFormatting(specifier: "g", precision: nil, explicitPositiveSign: false)
    public static let hex = OSLogFloatFormatting(specifier: "a", precision: nil, explicitPositiveSign: false)

    public static func fixed(precision: @autoclosure () -> Int, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(specifier: uppercase ? "F" : "f", precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }
    public static func fixed(explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(specifier: uppercase ? "F" : "f", precision: nil, explicitPositiveSign: explicitPositiveSign)
    }
    public static func exponential(precision: @autoclosure () -> Int, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(specifier: uppercase ? "E" : "e", precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }
    public static func hybrid(precision: @autoclosure () -> Int, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(specifier: uppercase ? "G" : "g", precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }

    func format(_ number: Double) -> String {
        // The precision is clamped: the format string is built here, never taken from input.
        let precisionPart = precision.map { ".\(min(max($0, 0), 64))" } ?? ""
        return String(format: "%\(explicitPositiveSign ? "+" : "")\(precisionPart)\(specifier)", number)
    }
}

/// How an interpolated Bool is written.
public enum OSLogBoolFormat: Sendable {
    case truth, answer
}

/// The pieces of a log message: literal text and interpolated values with their privacy.
public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
    var pieces: [String] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
        pieces.reserveCapacity(interpolationCount * 2 + 1)
    }

    public mutating func appendLiteral(_ literal: String) {
        pieces.append(literal)
    }

    private mutating func append(_ text: String, align: OSLogStringAlignment, privacy: OSLogPrivacy, scalar: Bool) {
        pieces.append(align.apply(text))
    }

    public mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(argumentString(), align: align, privacy: privacy, scalar: false)
    }

    public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: @autoclosure @escaping () -> T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(value().description, align: align, privacy: privacy, scalar: false)
    }

    public mutating func appendInterpolation<T: FixedWidthInteger>(_ number: @autoclosure @escaping () -> T, format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(format.format(number()), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(_ number: @autoclosure @escaping () -> Double, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(format.format(number()), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(_ number: @autoclosure @escaping () -> Float, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(format.format(Double(number())), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(_ number: @autoclosure @escaping () -> CGFloat, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(format.format(Double(number())), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(_ boolean: @autoclosure @escaping () -> Bool, format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto) {
        let value = boolean()
        let text = switch format {
        case .truth: value ? "true" : "false"
        case .answer: value ? "YES" : "NO"
        }
        append(text, align: .none, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(_ argumentObject: @autoclosure @escaping () -> NSObject, privacy: OSLogPrivacy = .auto) {
        append(argumentObject().description, align: .none, privacy: privacy, scalar: false)
    }

    public mutating func appendInterpolation(_ error: @autoclosure @escaping () -> any Error, privacy: OSLogPrivacy = .auto, attributes: String = "") {
        append(String(describing: error()), align: .none, privacy: privacy, scalar: false)
    }

    public mutating func appendInterpolation(_ value: @autoclosure @escaping () -> any Any.Type, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {
        append(String(describing: value()), align: align, privacy: privacy, scalar: false)
    }
}

/// A log message written with string interpolation: `logger.info("Got \(count) images for \(id, privacy: .public)")`.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    let interpolation: OSLogInterpolation

    public init(stringInterpolation: OSLogInterpolation) {
        interpolation = stringInterpolation
    }

    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: value.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }

    /// The message with every value shown, as Xcode's console shows it while debugging.
    var text: String { interpolation.pieces.joined() }
}
