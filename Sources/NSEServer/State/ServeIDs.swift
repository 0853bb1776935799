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
        let digits = Array("0123456789ABCDEF".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            for (word, groups) in [(high, [8, 4, 4]), (low, [4, 12])] {
                var shift = 64
                for length in groups {
                    if at > 0 {
                        buffer[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    for _ in 0..<length {
                        shift -= 4
                        buffer[at] = digits[Int((word >> UInt64(shift)) & 0xF)]
                        at += 1
                    }
                }
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
