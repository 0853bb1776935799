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
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
