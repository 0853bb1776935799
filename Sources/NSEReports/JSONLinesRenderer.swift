import Foundation
import NSEPipeline
import NSEPush

/// JSON Lines: each result as the JSON documented in the README on one line (keys sorted), for tools that read
/// a stream (`jq -c`, log shippers).
package struct JSONLinesRenderer: ResultRenderer {
    package init() {}

    package func render(_ result: ProcessResult) -> String {
        // What JSONEncoder writes with sorted keys, faster. Only strings, numbers, booleans and containers: encoding
        // cannot fail.
        String(decoding: (try? SortedJSONEncoder().encodeBytes(result)) ?? [], as: UTF8.self)
    }
}
