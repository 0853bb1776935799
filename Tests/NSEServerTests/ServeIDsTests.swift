import Foundation
@testable import NSEServer
import Testing

/// Every accepted push is stamped with an apns-id (when the sender gave none), an apns-unique-id and the time it was
/// received, written without Foundation's UUID and ISO8601DateFormatter (which cost more than the rest of
/// accepting a push). Backends parse them: they must keep the forms those writers give.
@Suite
struct ServeIDsTests {
    @Test
    func aNewIDIsARandomVersion4UUIDInUUIDsOwnForm() {
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = ServeIDs.uuidString()
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString == id, "\(id) is not written as UUID writes it")
            let bytes = Array(id.utf8)
            #expect(bytes[14] == UInt8(ascii: "4"), "\(id): not version 4")
            #expect(Array("89AB".utf8).contains(bytes[19]), "\(id): not RFC 9562's variant")
            seen.insert(id)
        }
        #expect(seen.count == 2000)
    }

    @Test(arguments: [0.0, 1.999, 951_782_400.5, 1_764_259_465.0, 1_798_761_599.999, 4_102_444_800.25, 253_402_300_799.0])
    func aTimestampIsWhatISO8601DateFormatterWrites(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ServeIDs.timestamp(date) == ISO8601DateFormatter().string(from: date))
    }
}
