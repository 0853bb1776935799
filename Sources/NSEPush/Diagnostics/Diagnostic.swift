/// One finding about a push: what happened, what the phone will show, and what to change.
public struct Diagnostic: Sendable, Hashable, Codable {
    public enum Severity: String, Sendable, Codable, Comparable {
        case info, warning, error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .info: 0
            case .warning: 1
            case .error: 2
            }
        }
    }

    public var severity: Severity
    public var code: DiagnosticCode
    public var message: String

    public init(_ severity: Severity, _ code: DiagnosticCode, _ message: String) {
        self.severity = severity
        self.code = code
        self.message = message
    }

    public static func error(_ code: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(.error, code, message)
    }

    public static func warning(_ code: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(.warning, code, message)
    }

    public static func info(_ code: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(.info, code, message)
    }
}
