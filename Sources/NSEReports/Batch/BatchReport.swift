import Foundation

/// A whole batch: every input in order, each one's entry (nil: not run), the summary, and `report.json`.
package struct BatchReport: Sendable {
    package var inputs: [BatchInput]
    package var entries: [BatchEntry?]
    package var summary: BatchSummary
    /// `OUT/report.json`, when there is an output folder and it could be written.
    package var reportFile: URL?
    /// Why `report.json` could not be written, if it could not.
    package var reportError: String?
    /// The results that could not be saved under the output folder (`ResultWorkspace.unsavedResults`).
    package var unsavedResults: [String] = []
}

extension BatchReport {
    /// A report of runs made elsewhere (`nse extension` runs each payload in a process of its own), for the
    /// same renderers (JUnit) as a batch's.
    package init(inputs: [BatchInput], entries: [BatchEntry?], summary: BatchSummary) {
        self.inputs = inputs
        self.entries = entries
        self.summary = summary
    }
}
