extension BatchReport {
    /// A report of runs made elsewhere (`nse extension` runs each payload in a process of its own), for the
    /// same renderers (JUnit) as a batch's.
    public init(inputs: [BatchInput], entries: [BatchEntry?], summary: BatchSummary) {
        self.inputs = inputs
        self.entries = entries
        self.summary = summary
    }
}

extension SharedMediaCache.Statistics {
    /// No shared downloads: runs that did not go through a batch's media cache.
    public static let none = SharedMediaCache.Statistics()
}
