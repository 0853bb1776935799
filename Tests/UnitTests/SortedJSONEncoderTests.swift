import Foundation
import NSEHarness
import NSEMedia
import NSEPipeline
import NSEPush
import NSETestSupport
import Testing

/// `SortedJSONEncoder` writes what `JSONEncoder` writes with `[.sortedKeys, .withoutEscapingSlashes]` (and with
/// `.prettyPrinted`), byte for byte: the journal, `nse process --format json|jsonl` and a payload's compact bytes
/// depend on it. Each case encodes with both and compares the bytes; where JSONEncoder throws, so must it.
struct SortedJSONEncoderTests {
    // MARK: Every bundled sample's result

    /// Every push of samples/payloads and the Xcode extension's through the pipeline (iOS, and iOS with Android), its
    /// media from samples/media scripted in memory: no socket, the clock a ManualClock. The limit is a hang guard:
    /// beside the whole suite on a busy machine the pipeline runs took 141 s.
    @Test(.timeLimit(.minutes(10)))
    func everySampleResultEncodesAsJSONEncoderDoes() async throws {
        let results = try await SampleResults.all()
        #expect(results.count >= 70)
        for (name, result) in results {
            try expectSameBytes(result, name)
        }
        // All of them in one array: objects in arrays, many levels deep.
        try expectSameBytes(results.map(\.result), "every result")
    }

    // MARK: Keys

    /// Keys that sort differently by UTF-16, UTF-8 or scalars (U+FF5E is after U+1F600's surrogates in UTF-16, before
    /// it in UTF-8), by case, as numbers, escaped and empty.
    @Test func keysSortByTheirUTF8Bytes() throws {
        let keys = ["\u{E9}", "z", "Z", "\u{1F600}", "\u{FF5E}", "a", "A", "", "a\u{0}", "\u{7F}", "10", "9", "1", "\"", "\\",
                    "/", "\n", "\u{2028}", "ab", "aB", "a b", "~", "\u{FFFF}", "\u{10FFFF}", "\u{E000}", "\u{D7FF}"]
        try expectSameBytes(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
        try expectSameBytes(Members(keys.enumerated().map { ($1, .int($0)) }))
    }

    @Test func integerKeysAreWrittenAsTheirDecimalText() throws {
        try expectSameBytes([10: "ten", 9: "nine", -1: "minus one", 0: "zero", Int.max: "max", Int.min: "min"])
    }

    /// A key encoded twice keeps its last value; keys equal as Strings but not in bytes are one member, with the
    /// first one's key and the last one's value.
    @Test func aKeyEncodedTwiceKeepsItsLastValue() throws {
        try expectSameBytes(Members([("b", .int(1)), ("a", .int(2)), ("b", .int(3)), ("c", .int(4)), ("b", .int(5))]))
        try expectSameBytes(Members([("\u{E9}", .int(1)), ("Z", .int(2)), ("e\u{301}", .int(3)), ("\u{212A}", .int(4)), ("K", .int(5))]))
        try expectSameBytes(Members([("K", .int(1)), ("\u{212A}", .int(2)), ("e\u{301}", .int(3)), ("\u{E9}", .int(4))]))
    }

    // MARK: Strings

    @Test func stringsAreEscapedAsJSONEncoderEscapesThem() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let strings = [
            "", "plain", controls, "\u{7F}", "\u{2028}\u{2029}", "/", "a/b//c", "\"quoted\"", "back\\slash",
            "\u{1F600}\u{FE0F}", "e\u{301}", "\u{FEFF}", "tab\tnew\nline\r\u{8}\u{C}", "\u{0}end",
            String(repeating: "long \u{E9} text / \"with\" escapes\n", count: 200),
        ]
        for text in strings {
            try expectSameBytes(text)
            try expectSameBytes([text: text])
        }
        try expectSameBytes(strings)
    }

    @Test func theEscaperIsTheJournalsToo() throws {
        var bytes: [UInt8] = []
        let text = "a\u{1}\u{1F}\"\\/\u{2028}\u{7F}\t"
        JSONStringLiteral.append(text, to: &bytes)
        #expect(bytes == Array(try foundation(text)))
    }

    // MARK: Numbers

    static let doubles: [Double] = [
        0, -0.0, 1, -1, 1.5, 0.1, 1e-7, 1e21, 1e16, 1e15, 123456789.123, 100, 1e300, -2.5e-300, 0.000001,
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
        Double.leastNormalMagnitude, Double.pi, 1.0 / 3, 9007199254740993,
    ]

    @Test(arguments: doubles)
    func doublesAreWrittenAsJSONEncoderWritesThem(_ value: Double) throws {
        try expectSameBytes(value)
        try expectSameBytes(["value": value])
        try expectSameBytes([value])
        try expectSameBytes(JSONValue.double(value))
    }

    @Test func floatsAreWrittenAsJSONEncoderWritesThem() throws {
        let floats: [Float] = [0, -0.0, 1, 1.5, 0.1, 1e-7, 3.4e38, Float.leastNonzeroMagnitude, Float.greatestFiniteMagnitude, 16_777_217]
        try expectSameBytes(floats)
        try expectSameBytes(Dictionary(uniqueKeysWithValues: floats.enumerated().map { ("\($0)", $1) }))
    }

    @Test func integersAreWrittenInDecimal() throws {
        try expectSameBytes(Integers())
        try expectSameBytes([Int.min, Int.max, 0, -1, 1, 10, 99, 100])
        try expectSameBytes([UInt64.max, 0])
        try expectSameBytes(Int128.min)
        try expectSameBytes(UInt128.max)
        try expectSameBytes(["true": true, "false": false] as [String: Bool])
    }

    /// JSONEncoder's default strategy throws for an infinity or NaN; so does this encoder, in every container, and a
    /// caller that goes on after the error finds nothing added.
    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func nonFiniteDoublesThrow(_ value: Double) throws {
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(value) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(["key": value]) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode([1, value]) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(JSONValue.array([.double(value)])) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(Float(value)) }
        for step in 0...5 { try expectSameBytes(GoesOnAfterAnError(value: value, step: step), "step \(step)") }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(value) }
    }

    // MARK: Containers

    @Test func optionalsNilAndEmptyContainers() throws {
        try expectSameBytes(Optionals(plain: nil, nested: .some(nil), present: "3", absent: nil, nestedPresent: .some(.some(4))))
        try expectSameBytes(Optionals(plain: 1, nested: nil, present: nil, absent: 2, nestedPresent: nil))
        try expectSameBytes([Int?.none, 1, nil])
        try expectSameBytes([[Int]]())
        try expectSameBytes([String: Int]())
        try expectSameBytes(["empty array": [[Int]](), "nested": [[], [1]]])
        try expectSameBytes(["empty object": [String: [String: Int]](), "nested": ["inner": [String: Int]()]])
        try expectSameBytes(Optional<Int>.none)
    }

    /// A value that encodes nothing is `{}`; at the top level both throw.
    @Test func aValueThatEncodesNothing() throws {
        try expectSameBytes(["nothing": EncodesNothing()])
        try expectSameBytes([EncodesNothing(), EncodesNothing()])
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(EncodesNothing()) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(EncodesNothing()) }
    }

    @Test func nestedContainersSuperEncodersAndAContainerAskedForTwice() throws {
        try expectSameBytes(NestedContainers())
        try expectSameBytes([NestedContainers(), NestedContainers()])
        try expectSameBytes(Subclass())
    }

    @Test func foundationTypesAndDictionaries() throws {
        try expectSameBytes(FoundationValues())
        try expectSameBytes([Weekday.monday: 1, .friday: 5])
        try expectSameBytes([[1: "one"], [2: "two", 3: "three"]])
    }

    /// Nesting past 512 levels: both throw; one level less, both write it.
    @Test func nestingPastJSONEncodersLimitThrows() throws {
        try expectSameBytes(Nested(depth: 511))
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Nested(depth: 512)) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder().encode(Nested(depth: 512)) }
    }

    @Test func aJSONValueTree() throws {
        let tree = JSONValue.object([
            "aps": .object(["alert": .object(["title": .string("Sale \u{E9}/\u{1F600}"), "body": .string("50% off\n")]),
                            "mutable-content": .int(1), "badge": .int(-3), "sound": .null]),
            "numbers": .array([.int(0), .int(Int.min), .double(1e-7), .double(-0.0), .double(2.5), .bool(true), .bool(false)]),
            "nested": .array([.array([]), .object([:]), .array([.object(["z": .int(1), "Z": .int(2), "\u{FF5E}": .int(3)])])]),
            "": .string(""), "\u{1F600}": .string("smile"),
        ])
        try expectSameBytes(tree)
        #expect(tree.compactData() == (try foundation(tree)))
    }

    // MARK: Helpers

    private func foundation<Value: Encodable>(_ value: Value, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Both encoders, compact and pretty: the same bytes, or both throw.
    private func expectSameBytes<Value: Encodable>(_ value: Value, _ name: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        for pretty in [false, true] {
            let expected = try? foundation(value, pretty: pretty)
            let actual = try? SortedJSONEncoder(prettyPrinted: pretty).encode(value)
            #expect(actual != nil || expected == nil, "\(name) threw", sourceLocation: sourceLocation)
            guard let expected, let actual, actual != expected else { continue }
            let prefix = zip(expected, actual).prefix { $0 == $1 }.count
            Issue.record(
                "\(name) (pretty: \(pretty)) differs at byte \(prefix): expected …\(String(decoding: expected.dropFirst(max(0, prefix - 40)).prefix(80), as: UTF8.self)) got …\(String(decoding: actual.dropFirst(max(0, prefix - 40)).prefix(80), as: UTF8.self))",
                sourceLocation: sourceLocation)
        }
    }
}

// MARK: - Crafted types

/// An object's members in the order given, duplicates and all.
private struct Members: Encodable {
    var members: [(String, JSONValue)]
    init(_ members: [(String, JSONValue)]) { self.members = members }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in members { try container.encode(value, forKey: AnyKey(stringValue: key)) }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct Integers: Encodable {
    var int = Int.min, intMax = Int.max, int8 = Int8.min, int16 = Int16.min, int32 = Int32.min, int64 = Int64.min
    var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64.max
    var int128 = Int128.min, uint128 = UInt128.max, zero = 0, negative = -42
}

private struct Optionals: Encodable {
    var plain: Int?
    var nested: Int??
    var present: String?
    var absent: Double?
    var nestedPresent: Int??

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(plain, forKey: .plain)               // null when nil
        try container.encodeIfPresent(nested, forKey: .nested)    // null for .some(nil)
        try container.encodeIfPresent(present, forKey: .present)  // left out when nil
        try container.encodeIfPresent(absent, forKey: .absent)
        try container.encode(nestedPresent, forKey: .nestedPresent)
        try container.encodeNil(forKey: .explicitNil)
    }

    enum CodingKeys: String, CodingKey { case plain, nested, present, absent, nestedPresent, explicitNil }
}

private struct EncodesNothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

/// A NaN or infinity whose error the type catches before going on, in each kind of container. One case a value:
/// JSONEncoder keeps a failed value's encoder for the next value, and two failures in a row can trap in it.
private struct GoesOnAfterAnError: Encodable {
    var value: Double
    var step: Int

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: AnyKey.self)
        switch step {
        case 0:
            try? object.encode(value, forKey: AnyKey(stringValue: "double"))
            try? object.encode(Float(value), forKey: AnyKey(stringValue: "float"))
        case 1: try? object.encode([value], forKey: AnyKey(stringValue: "array"))
        case 2: try? object.encode(["inner": value], forKey: AnyKey(stringValue: "object"))
        case 3:
            var array = object.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "unkeyed"))
            try? array.encode(value)
            try array.encode(2)
        case 4:
            var array = object.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "unkeyed"))
            try? array.encode([value])
            try array.encode(3)
        default:
            var array = object.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "unkeyed"))
            try? array.encode(JSONValue.object(["inner": .double(value)]))
            try array.encode(4)
        }
        try object.encode(1, forKey: AnyKey(stringValue: "after"))
    }
}

private struct NestedContainers: Encodable {
    enum Keys: String, CodingKey { case b, a, list, inner, again }
    enum InnerKeys: String, CodingKey { case y, x }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode("first")
        try inner.encode(1, forKey: .y)
        var deeper = list.nestedContainer(keyedBy: InnerKeys.self)
        try list.encode("third")
        try deeper.encode(true, forKey: .x)
        var deepList = list.nestedUnkeyedContainer()
        try deepList.encodeNil()
        try inner.encode(2, forKey: .x)
        // The same nested container asked for again: the same object.
        var innerAgain = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        try innerAgain.encode(3, forKey: .y)
        try "super value".encode(to: container.superEncoder())
        try [1, 2].encode(to: container.superEncoder(forKey: .b))
        try "in the list".encode(to: list.superEncoder())
        _ = list.superEncoder()  // nothing encoded: {}
        try list.encode(list.count)
        // The encoder's container asked for a second time, as ProcessResult does for its derived keys.
        var second = encoder.container(keyedBy: Keys.self)
        try second.encode("a", forKey: .a)
    }
}

private class Base: Encodable {
    var base = "base"
}

private final class Subclass: Base {
    var own = "own"
    enum Keys: String, CodingKey { case own }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(own, forKey: .own)
        try super.encode(to: container.superEncoder())
    }
}

private struct FoundationValues: Encodable {
    var date = Date(timeIntervalSinceReferenceDate: 123_456_789.25)
    var data = Data([0, 1, 2, 255])
    var url = URL(string: "https://media.example.com/img/sale.jpg?w=600&fmt=jpg#top")!
    var relative = URL(string: "img/sale.jpg", relativeTo: URL(string: "https://media.example.com/")!)!
    var file = URL(fileURLWithPath: "/tmp/a b/c.json")
    var decimal = Decimal(string: "12345.678901234567890")!
    var urls = [URL(string: "https://a.example/")!]
    var optionalURL: URL? = URL(string: "https://b.example/x")
    var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
}

private enum Weekday: String, Codable, CodingKeyRepresentable {
    case monday, friday
}

private struct Nested: Encodable {
    var depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 1 { try container.encode(Nested(depth: depth - 1)) }
    }
}

// MARK: - The samples' results

/// The result of the bundled samples, run as `nse process --media samples/media` runs it but with the media served
/// from memory (`ScriptedTransport`) on a `ManualClock`: each `.serve.json` becomes the same behaviour (a stall, a
/// redirect loop, a cut body, a padded length).
enum SampleResults {
    static let mediaHost = "https://media.example.com/"

    static func all() async throws -> [(name: String, result: ProcessResult)] {
        let samples = RepositoryFolders.samples
        let script = try mediaScript(samples.appendingPathComponent("media"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var results: [(String, ProcessResult)] = []
        for file in try pushFiles(samples) {
            for platform in [Platform.ios, .both] {
                let clock = ManualClock()
                var pipeline = Pipeline(device: DeviceProfile(), changes: ContentChanges(titleSuffix: " [modified]"))
                    .with(transport: ScriptedTransport(script, clock: clock), clock: clock, files: TemporaryFileStore(root: folder))
                pipeline.platform = platform
                let name = file.path.replacingOccurrences(of: samples.path + "/", with: "") + " (\(platform))"
                results.append((name, await pipeline.run(file: file)))
            }
        }
        return results
    }

    /// The push files of samples/payloads and samples/xcode-extension/payloads. Not the SDKs' (samples/sdks): some of
    /// their helpers wait on timers of their own that a ManualClock nobody moves never fires, so their runs are
    /// compared where they run on the system clock over loopback (SDKSampleTests, SampleTests in NSEKitTests).
    static func pushFiles(_ samples: URL) throws -> [URL] {
        let folders = [samples.appendingPathComponent("payloads"), samples.appendingPathComponent("xcode-extension/payloads")]
        return try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.lastPathComponent != "expected.json" && $0.lastPathComponent != "README.md" }
        }.sorted { $0.path < $1.path }
    }

    static func mediaScript(_ media: URL) throws -> [String: ScriptedResponse] {
        var script: [String: ScriptedResponse] = [:]
        let files = FileManager.default.enumerator(at: media, includingPropertiesForKeys: [.isRegularFileKey])?
            .compactMap { $0 as? URL } ?? []
        for file in files where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let relative = file.path.replacingOccurrences(of: media.path + "/", with: "")
            let path = relative.hasSuffix(".serve.json") ? String(relative.dropLast(".serve.json".count)) : relative
            let url = mediaHost + path
            let body = (try? Data(contentsOf: media.appendingPathComponent(path))).map { [UInt8]($0) } ?? []
            let rules = (try? Data(contentsOf: media.appendingPathComponent(path + ".serve.json")))
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
            var response = ScriptedResponse.ok(body, contentType: rules["contentType"] as? String ?? contentType(path))
            switch rules["body"] as? String {
            case "stall": response.duration = .seconds(120)
            case "redirect-loop": response = .redirect(to: url)
            case "truncate": response.headers = [("Content-Type", contentType(path)), ("Content-Length", "\(rules["declaredLength"] as? Int ?? body.count + 1)")]
            default: break
            }
            if let padded = rules["padTo"] as? Int {
                response.headers = [("Content-Type", contentType(path)), ("Content-Length", "\(padded)")]
            }
            script[url] = response
        }
        return script
    }

    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "mp4": return "video/mp4"
        default: return "application/octet-stream"
        }
    }
}
