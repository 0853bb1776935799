import NSEMedia
import NSEPipeline

extension BatchSummary {
    /// The summary of results `nse process` holds in memory (no shared media cache, one at a time).
    public init(results: [ProcessResult], strict: Bool, elapsedMilliseconds: Double = 0) {
        self.init(
            entries: results.map { BatchEntry($0, outputPath: $0.input, strict: strict) }, media: SharedMediaCache.Statistics(),
            jobs: 1, elapsedMilliseconds: elapsedMilliseconds, interrupted: false)
    }
}
