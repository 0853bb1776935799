import Foundation
import NSEPipeline
import NSEPush

/// JUnit XML for CI systems (GitLab, Jenkins, GitHub test reporters): one test case per push.
///
/// A push that fails verification is a `<failure>` whose message is its first error and whose text lists
/// every error and warning; an unreadable input is an `<error>`; one an interruption left unprocessed is
/// `<skipped>`; a push that passes with warnings lists them in `<system-out>`. The test case's name is the input's path under its root, its class name the folder it is in.
package struct JUnitRenderer: Sendable {
    package var suiteName = "nse batch"

    package init() {}

    package func render(_ report: BatchReport) -> String {
        let summary = report.summary
        let time = seconds(summary.elapsedMilliseconds)
        let counts = "tests=\"\(summary.payloads)\" failures=\"\(summary.failed)\" errors=\"\(summary.unreadable)\" skipped=\"\(summary.notRun)\" time=\"\(time)\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(escape(suiteName))\" \(counts)>\n"
        xml += "  <testsuite name=\"\(escape(suiteName))\" \(counts)>\n"
        for (input, entry) in zip(report.inputs, report.entries) {
            xml += testCase(input, entry)
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private func testCase(_ input: BatchInput, _ entry: BatchEntry?) -> String {
        let folder = input.outputPath.split(separator: "/").dropLast().joined(separator: "/")
        let open = "    <testcase name=\"\(escape(input.outputPath))\" classname=\"\(escape(folder.isEmpty ? suiteName : folder))\""
        guard let entry else {
            return open + " time=\"0\">\n      <skipped message=\"the batch was interrupted before this push ran\"/>\n    </testcase>\n"
        }
        let time = " time=\"\(seconds(entry.milliseconds))\""
        guard entry.exitStatus != 0 else {
            // Warnings do not fail the push (without --strict) but CI should still show them.
            guard !entry.warnings.isEmpty else { return open + time + "/>\n" }
            let lines = entry.warnings.map { "warning \($0.code.rawValue): \($0.message)" }.joined(separator: "\n")
            return open + time + ">\n      <system-out>" + escape(lines, inAttribute: false) + "</system-out>\n    </testcase>\n"
        }
        let element = entry.exitStatus == 1 ? "failure" : "error"
        // With --strict a push may fail on warnings alone: its first warning is the message.
        let first = entry.errors.first ?? entry.warnings.first
        let message = first.map { "\($0.code.rawValue): \($0.message)" } ?? entry.outcome.rawValue
        var detailLines = entry.diagnostics.map { "\($0.severity.rawValue) \($0.code.rawValue): \($0.message)" }
        if let helper = entry.helper, !helper.isFirebaseByDefault {
            detailLines.insert("helper \(helper.sdk.rawValue): \(helper.selection.rawValue), \(helper.reason)", at: 0)
        }
        let details = detailLines.joined(separator: "\n")
        return open + time + ">\n"
            + "      <\(element) message=\"\(escape(message))\" type=\"\(escape(first?.code.rawValue ?? entry.outcome.rawValue))\">"
            + escape(details, inAttribute: false) + "</\(element)>\n"
            + "    </testcase>\n"
    }

    private func seconds(_ milliseconds: Double) -> String {
        String(format: "%.3f", milliseconds / 1000)
    }

    /// Escapes text for an attribute (line breaks kept as references) or for element content.
    func escape(_ text: String, inAttribute: Bool = true) -> String {
        MarkupEscaping.escape(text, encodingLineBreaks: inAttribute)
    }
}
