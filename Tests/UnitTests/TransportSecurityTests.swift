import Foundation
import NSEPush
import NSETestSupport
import Testing

/// App Transport Security as the extension's Info.plist sets it: one policy for Firebase's helper, the
/// extension's own requests and the CLI.
struct TransportSecurityTests {
    private func policy(_ ats: [String: Any]) -> TransportSecurity {
        TransportSecurity(infoPlist: ["NSAppTransportSecurity": ats])
    }

    private let exampleWithSubdomains: [String: Any] = [
        "NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true]],
    ]

    @Test(arguments: [
        ("http://example.com/a.jpg", true),
        ("http://cdn.example.com/a.jpg", true),
        ("http://a.b.EXAMPLE.com/a.jpg", true),
        ("http://example.org/a.jpg", false),
        ("http://notexample.com/a.jpg", false),
        ("https://anything.net/a.jpg", true),
        ("ftp://example.com/a.jpg", false),
    ])
    func anExceptionDomainWithSubdomainsCoversItsSubdomainsOnly(url: String, allowed: Bool) throws {
        #expect(policy(exampleWithSubdomains).allows(try #require(URL(string: url))) == allowed)
    }

    @Test func withoutIncludesSubdomainsOnlyTheDomainItselfLoads() {
        let ats = policy(["NSExceptionDomains": ["example.com": ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        #expect(ats.allowsInsecureLoad(to: "example.com"))
        #expect(!ats.allowsInsecureLoad(to: "cdn.example.com"))
    }

    @Test func aDomainExceptionOverridesArbitraryLoads() {
        let ats = policy([
            "NSAllowsArbitraryLoads": true,
            "NSExceptionDomains": ["secure.example.com": ["NSExceptionAllowsInsecureHTTPLoads": false]],
        ])
        #expect(ats.allowsInsecureLoad(to: "images.example.net"))
        #expect(!ats.allowsInsecureLoad(to: "secure.example.com"))
    }

    @Test func arbitraryLoadsAreIgnoredBesideTheFinerKeys() {
        let ats = policy(["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": true])
        #expect(!ats.allowsArbitraryLoads)
        #expect(ats.notes.count == 1)
        #expect(ats.notes.first?.contains("NSAllowsLocalNetworking") == true)
    }

    @Test func thirdPartyExceptionsCountAsExceptions() {
        let ats = policy(["NSExceptionDomains": ["cdn.net": ["NSThirdPartyExceptionAllowsInsecureHTTPLoads": true]]])
        #expect(ats.allowsInsecureLoad(to: "cdn.net"))
    }

    @Test func aPlistFileIsReadXMLOrBinaryAndGarbageIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-ats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root: [String: Any] = ["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true]]
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let file = folder.appendingPathComponent("Info-\(format.rawValue).plist")
            try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0).write(to: file)
            #expect(try TransportSecurity(infoPlist: file).allowsArbitraryLoads)
        }
        let garbage = folder.appendingPathComponent("garbage.plist")
        try Data("not a plist {".utf8).write(to: garbage)
        #expect(throws: TransportSecurityError.self) { try TransportSecurity(infoPlist: garbage) }
        #expect(throws: TransportSecurityError.self) { try TransportSecurity(infoPlist: folder.appendingPathComponent("missing.plist")) }
    }

    @Test func wrongTypesAreNotedAndIgnored() {
        let ats = TransportSecurity(infoPlist: ["NSAppTransportSecurity": ["NSExceptionDomains": "example.com"]])
        #expect(ats.exceptionDomains.isEmpty)
        #expect(ats.notes == ["NSExceptionDomains is not a dictionary: iOS ignores it"])
    }

    @Test func allowHTTPIsArbitraryLoads() throws {
        var profile = DeviceProfile()
        #expect(!profile.transportSecurityAllows(try #require(URL(string: "http://a.com/x"))))
        profile.allowsHTTP = true
        #expect(profile.transportSecurityAllows(try #require(URL(string: "http://a.com/x"))))
        #expect(profile.transportSecurity.allowsArbitraryLoads)
    }

    @Test(arguments: [
        ("http://printer/a.jpg", true),
        ("http://camera.local/a.jpg", true),
        ("http://192.168.1.20/a.jpg", true),
        ("http://[::1]:8080/a.jpg", true),
        ("http://cdn.example.com/a.jpg", false),
        ("http://1.2.3.example.com/a.jpg", false),
    ])
    func localNetworkingCoversLocalHostsOnly(url: String, allowed: Bool) throws {
        let ats = policy(["NSAllowsLocalNetworking": true])
        #expect(ats.allows(try #require(URL(string: url))) == allowed)
        #expect(!policy([:]).allows(try #require(URL(string: url))), "nothing over http without a key")
    }
}
