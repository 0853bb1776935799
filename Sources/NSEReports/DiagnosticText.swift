import Foundation
import NSEPush

extension Diagnostic {
    /// "  warning lint.aps.unknown-key: ...", as every text report prints a finding.
    public var textLine: String {
        "  \(severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(code.rawValue): \(message)"
    }
}

/// Pretty JSON, indented to sit under a report's heading.
func indentedJSON(_ value: JSONValue, by indent: String) -> String {
    let text = String(decoding: JSONResultRenderer().encode(value), as: UTF8.self)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }.joined(separator: "\n")
}
