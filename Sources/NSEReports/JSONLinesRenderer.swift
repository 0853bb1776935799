import Foundation
import NSEPipeline

/// JSON Lines: each result as the JSON documented in the README on one line (keys sorted), for tools that read
/// a stream (`jq -c`, log shippers).
package struct JSONLinesRenderer: ResultRenderer {
    package init() {}

    package func render(_ result: ProcessResult) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, numbers, booleans and containers: encoding cannot fail.
        return String(decoding: (try? encoder.encode(result)) ?? Data(), as: UTF8.self)
    }
}
