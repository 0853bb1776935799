/// What `nse lint` reports about one file: the stable JSON documented in the README.
public struct LintReport: Sendable, Codable {
    public var input: String
    public var inputKind: InputKind?
    /// The payload's size as APNs counts it (compact JSON, after FCM's resolution); absent when unreadable.
    public var payloadBytes: Int?
    /// The most APNs accepts for this push: 4096 bytes, 5120 for `apns-push-type: voip`.
    public var payloadLimit: Int?
    /// APNs or FCM refuses the request as written: nothing reaches the phone.
    public var rejected: Bool
    public var diagnostics: [Diagnostic]

    public var hasErrors: Bool {
        diagnostics.contains { $0.severity == .error }
    }

    /// 0: no errors; 1: an error-severity finding; 2: the file could not be read.
    public var exitStatus: Int32 {
        if diagnostics.contains(where: { $0.code == .inputUnreadable }) { return 2 }
        return hasErrors ? 1 : 0
    }
}
