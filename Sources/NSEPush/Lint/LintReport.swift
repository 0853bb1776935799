/// What `nse lint` reports about one file: the stable JSON documented in the README.
public struct LintReport: Sendable, Codable, VerdictReport {
    public var input: String
    public var inputKind: InputKind?
    /// The payload's size as APNs counts it (compact JSON, after FCM's resolution); absent when unreadable.
    public var payloadBytes: Int?
    /// The most APNs accepts for this push: 4096 bytes, 5120 for `apns-push-type: voip`.
    public var payloadLimit: Int?
    /// APNs or FCM refuses the request as written: nothing reaches the phone.
    public var rejected: Bool
    public var diagnostics: [Diagnostic]

    public var verdictDiagnostics: [Diagnostic] { diagnostics }
}
