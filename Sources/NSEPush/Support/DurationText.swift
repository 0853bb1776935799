/// Durations as reports print them.
extension Duration {
    /// The duration in milliseconds, as reports print it.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// "30 s", "2.5 s".
    public var secondsText: String {
        let seconds = milliseconds / 1000
        return Int(exactly: seconds).map { "\($0) s" } ?? "\(seconds) s"
    }
}
