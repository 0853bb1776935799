import Foundation

/// App Transport Security as the extension's Info.plist sets it: whether a plain-http load to a host is allowed.
/// The one ATS rule of the project: Firebase's helper, the extension's own requests and `--allow-http` all use it.
public struct TransportSecurity: Sendable, Hashable {
    /// `NSAllowsArbitraryLoads` (and no key that makes iOS ignore it).
    public var allowsArbitraryLoads = false
    /// `NSAllowsLocalNetworking`: plain http to unqualified host names, `.local` domains and IP addresses.
    public var allowsLocalNetworking = false
    /// `NSExceptionDomains`, by lowercased domain.
    public var exceptionDomains: [String: DomainException] = [:]
    /// Keys of the plist that were present but not understood, or ignored by iOS, for a warning.
    public var notes: [String] = []

    /// One `NSExceptionDomains` entry.
    public struct DomainException: Sendable, Hashable {
        /// `NSExceptionAllowsInsecureHTTPLoads` (or `NSThirdPartyExceptionAllowsInsecureHTTPLoads`).
        public var allowsInsecureHTTPLoads: Bool
        /// `NSIncludesSubdomains`.
        public var includesSubdomains: Bool

        public init(allowsInsecureHTTPLoads: Bool, includesSubdomains: Bool = false) {
            self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
            self.includesSubdomains = includesSubdomains
        }
    }

    /// ATS as iOS applies it with no Info.plist keys: https only.
    public init() {}

    /// Everything allowed over plain http (`--allow-http`: the Info.plist has `NSAllowsArbitraryLoads`).
    public static let arbitraryLoads: TransportSecurity = {
        var policy = TransportSecurity()
        policy.allowsArbitraryLoads = true
        return policy
    }()

    /// True when a plain-http request to `host` loads: a matching exception domain decides (the most specific
    /// one), else `NSAllowsArbitraryLoads`.
    public func allowsInsecureLoad(to host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        if let exact = exceptionDomains[host] { return exact.allowsInsecureHTTPLoads }
        if allowsLocalNetworking, Self.isLocal(host) { return true }
        // Walk up the labels: "a.b.example.com" tries "b.example.com", then "example.com", then "com".
        var labels = host.split(separator: ".")
        while labels.count > 1 {
            labels.removeFirst()
            if let parent = exceptionDomains[labels.joined(separator: ".")], parent.includesSubdomains {
                return parent.allowsInsecureHTTPLoads
            }
        }
        return allowsArbitraryLoads
    }

    /// An unqualified name ("printer"), a `.local` name, or an IPv4 or IPv6 address: what NSAllowsLocalNetworking covers.
    static func isLocal(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.contains(":") { return true }
        if !bare.contains(".") || bare.hasSuffix(".local") { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }
    }

    /// True when a load of `url` is allowed: https always, http as `allowsInsecureLoad(to:)` says, no other scheme.
    public func allows(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": true
        case "http": allowsInsecureLoad(to: url.host ?? "")
        default: false
        }
    }

    /// An app's Info.plist is a few kilobytes; this bounds what a mistaken path costs.
    public static let maxInfoPlistBytes = 16 << 20

    /// The policy of an Info.plist file (XML or binary).
    public init(infoPlist file: URL) throws(TransportSecurityError) {
        let data: Data
        do throws(RegularFileError) {
            data = try RegularFile.read(file.path, limit: Self.maxInfoPlistBytes)
        } catch {
            throw .unreadable("\(file.path): \(error.reason(path: file.path))")
        }
        try self.init(infoPlist: data)
    }

    /// The policy of an Info.plist's bytes.
    public init(infoPlist data: Data) throws(TransportSecurityError) {
        let parsed: Any
        do {
            parsed = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw .unreadable("not a property list: \(error.localizedDescription)")
        }
        guard let root = parsed as? [String: Any] else { throw .unreadable("the property list is not a dictionary") }
        self.init(infoPlist: root)
    }

    /// The policy of an Info.plist's dictionary (only `NSAppTransportSecurity` is read).
    public init(infoPlist root: [String: Any]) {
        guard let ats = root["NSAppTransportSecurity"] else { return }
        guard let ats = ats as? [String: Any] else {
            notes.append("NSAppTransportSecurity is not a dictionary: iOS ignores it")
            return
        }
        let arbitrary = Self.bool(ats["NSAllowsArbitraryLoads"])
        // iOS 10 and later ignore NSAllowsArbitraryLoads when any of these finer keys is present.
        let overriding = ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent", "NSAllowsLocalNetworking"]
            .filter { ats[$0] != nil }
        if arbitrary, !overriding.isEmpty {
            notes.append("NSAllowsArbitraryLoads is ignored because \(overriding.joined(separator: ", ")) is present")
        }
        allowsArbitraryLoads = arbitrary && overriding.isEmpty
        allowsLocalNetworking = Self.bool(ats["NSAllowsLocalNetworking"])
        guard let domains = ats["NSExceptionDomains"] else { return }
        guard let domains = domains as? [String: Any] else {
            notes.append("NSExceptionDomains is not a dictionary: iOS ignores it")
            return
        }
        for (domain, value) in domains {
            guard let entry = value as? [String: Any] else {
                notes.append("NSExceptionDomains[\(domain)] is not a dictionary: iOS ignores it")
                continue
            }
            let insecure = Self.bool(entry["NSExceptionAllowsInsecureHTTPLoads"]) || Self.bool(entry["NSThirdPartyExceptionAllowsInsecureHTTPLoads"])
            exceptionDomains[domain.lowercased()] = DomainException(
                allowsInsecureHTTPLoads: insecure, includesSubdomains: Self.bool(entry["NSIncludesSubdomains"]))
        }
    }

    private static func bool(_ value: Any?) -> Bool {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        return false
    }

    /// How to let `host` load over http, for messages.
    public static func remedy(for host: String) -> String {
        "add an NSExceptionDomains entry for \(host) with NSExceptionAllowsInsecureHTTPLoads to the extension's Info.plist (the harness's `infoPlist`, the CLI's --allow-http), or serve it over https"
    }
}

/// An Info.plist that could not be read.
public enum TransportSecurityError: Error, Sendable, Equatable {
    case unreadable(String)
}
