/// The types of Customer.io's common module that extension files meet (customerio-ios 4.7.5, `Sources/Common`:
/// `Type/Region.swift`, `Util/Log.swift`, `Service/Request/PushMetric.swift`, `Version.swift`).

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

extension Region {
    /// `Region.getRegion(from:)`: "US" or "EU" in any case; anything else is US.
    public static func getRegion(from regionStr: String) -> Region {
        regionStr.uppercased() == "EU" ? .EU : .US
    }
}

/// A push metric (`Sources/Common/Service/Request/PushMetric.swift`), as `MessagingPush.trackMetric` takes it.
public enum Metric: String, Codable, Sendable {
    case delivered
    case opened
    case converted
}

extension Metric {
    /// `Metric.getEvent(from:)`: the metric named in any case, else nil.
    public static func getEvent(from metricStr: String) -> Metric? {
        Metric(rawValue: metricStr.lowercased())
    }
}

/// The SDK's version (`Sources/Common/Version.swift`): the release whose sources this stand-in follows.
public enum SdkVersion {
    public static let version = "4.7.5"
}
