/// Text made safe for XML and HTML, content and double- or single-quoted attributes alike: the five markup
/// characters escaped, and the characters XML 1.0 forbids (control characters but tab, newline and carriage
/// return; U+FFFE, U+FFFF) replaced by U+FFFD, a visible mark that something was there, so any payload text yields a well-formed JUnit file or HTML page.
package enum MarkupEscaping {
    /// - Parameter encodingLineBreaks: write tab, newline and carriage return as character references, as an XML
    ///   attribute needs to keep them (a parser folds literal ones into spaces).
    package static func escape(_ text: String, encodingLineBreaks: Bool = false) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\n", "\t", "\r": escaped += encodingLineBreaks ? "&#\(scalar.value);" : String(scalar)
            default:
                let forbidden = scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF
                escaped.unicodeScalars.append(forbidden ? "\u{FFFD}" : scalar)
            }
        }
        return escaped
    }
}
