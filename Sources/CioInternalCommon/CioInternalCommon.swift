/// The types of Customer.io's common module that extension files meet (customerio-ios, `Sources/Common`).

/// The region of the Customer.io workspace: which data center the SDK talks to.
public enum Region: String, Equatable, Sendable {
    case US
    case EU
}

/// How much the SDK logs.
public enum CioLogLevel: String, CaseIterable, Sendable {
    case none
    case error
    case info
    case debug
}
