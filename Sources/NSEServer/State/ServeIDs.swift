#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The identifiers and timestamps stamped on every accepted push, made without Foundation's per-call costs:
/// `UUID()` opens and reads /dev/urandom each time on Linux, and `ISO8601DateFormatter` formats through ICU. Each
/// writes exactly what the Foundation call it replaces writes (ServeIDsTests compare them).
enum ServeIDs {
    /// A random (version 4, RFC 9562 section 5.4) UUID as `UUID().uuidString` writes one: uppercase, dashed.
    static func uuidString() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = (high & ~0xF000) | 0x4000  // the version, 4: bits 48 to 51
        low = (low & ~(0xC000 << 48)) | (0x8000 << 48)  // the variant, 10: the top two bits of byte 8
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            // The 32 hex digits, high nibble first, with a dash before the 9th, 13th, 17th and 21st.
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = nibble < 16 ? high : low
                let digit = UInt8((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)
                buffer[at] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "A") + digit - 10
                at += 1
            }
            return at
        }
    }

    /// `date` as `ISO8601DateFormatter()` writes it by default: UTC, whole seconds, `2026-11-27T15:24:25Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return ISO8601DateFormatter().string(from: date) }
        let year = Int(parts.tm_year) + 1900
        guard year >= 0, year < 10_000 else {
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
        }
        // Every field has its fixed width: the 20 bytes written in place, no string made for each part.
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, digits: Int, at start: Int) {
                var rest = value
                for index in stride(from: start + digits - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, digits: 4, at: 0)
            put(Int(parts.tm_mon) + 1, digits: 2, at: 5)
            put(Int(parts.tm_mday), digits: 2, at: 8)
            put(Int(parts.tm_hour), digits: 2, at: 11)
            put(Int(parts.tm_min), digits: 2, at: 14)
            put(Int(parts.tm_sec), digits: 2, at: 17)
            buffer[4] = UInt8(ascii: "-")
            buffer[7] = UInt8(ascii: "-")
            buffer[10] = UInt8(ascii: "T")
            buffer[13] = UInt8(ascii: ":")
            buffer[16] = UInt8(ascii: ":")
            buffer[19] = UInt8(ascii: "Z")
            return 20
        }
    }
}
