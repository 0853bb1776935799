import Foundation
import NSEHarness
import NSEPipeline
import NSEPush

/// `nse-bench --json-encode N`: what `nse serve` pays to journal a delivery, the `ProcessResult` of a text-only APNs
/// push (no extension run) encoded N times by Foundation's `JSONEncoder` with sorted keys and by `SortedJSONEncoder`,
/// in interleaved rounds; prints the median microseconds per encode of each and their ratio.
enum JSONEncodeBenchmark {
    static let push = #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"}}}"#

    static func run(encodes: Int, rounds: Int) throws {
        let received = try PushReader.parse(Data(push.utf8))
        let result = try Benchmark.wait { await Pipeline(device: DeviceProfile()).run(received, input: "push") }
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let sorted = SortedJSONEncoder()
        let expected = try foundation.encode(result)
        guard try sorted.encode(result) == expected else {
            throw ValidationFailure("SortedJSONEncoder and JSONEncoder wrote different bytes for the result")
        }
        print("json-encode: \(push)'s result, \(expected.count) bytes of JSON, \(encodes) encodes a round, \(rounds) rounds")
        var foundationTimes: [Double] = []
        var sortedTimes: [Double] = []
        var derivedTimes: [Double] = []
        for _ in 0..<rounds {
            foundationTimes.append(try microsecondsPerEncode(encodes) { try foundation.encode(result) })
            sortedTimes.append(try microsecondsPerEncode(encodes) { try sorted.encode(result) })
            // What both pay inside ProcessResult.encode(to:): the verdict and the headline, computed for the JSON.
            derivedTimes.append(try microsecondsPerEncode(encodes) { Data(result.headline.line.utf8 + [result.verdict == .pass ? 1 : 0]) })
        }
        let foundationMedian = median(foundationTimes)
        let sortedMedian = median(sortedTimes)
        print(String(format: "JSONEncoder:       %.2f µs per encode (median; rounds %@)", foundationMedian, list(foundationTimes)))
        print(String(format: "SortedJSONEncoder: %.2f µs per encode (median; rounds %@)", sortedMedian, list(sortedTimes)))
        let derivedMedian = median(derivedTimes)
        print(String(format: "ratio: %.1fx; %.2f µs of each is ProcessResult computing its verdict and headline, without which %.1fx",
                     foundationMedian / sortedMedian, derivedMedian, (foundationMedian - derivedMedian) / (sortedMedian - derivedMedian)))
    }

    private static func microsecondsPerEncode(_ encodes: Int, _ encode: () throws -> Data) throws -> Double {
        var bytes = 0
        let start = ContinuousClock.now
        for _ in 0..<encodes { bytes &+= try encode().count }
        let elapsed = ContinuousClock.now - start
        // The sum keeps the encodes from being optimized away.
        precondition(bytes > 0)
        return elapsed.seconds * 1e6 / Double(max(encodes, 1))
    }

    private static func list(_ times: [Double]) -> String {
        times.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }

    struct ValidationFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
