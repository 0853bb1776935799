// A test file that imports CleverTapSDK beside Testing: CleverTapSDK re-exports UIKit, as CleverTap's framework
// does, so this file also needs Swift Testing's UIKit overlay (`_Testing_UIKit`, the NSEHarness product's).
import CleverTapSDK
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct CleverTapInstanceConfigTests {
    // CleverTapInstanceConfig.m's defaults for an instance made in code.
    @Test func aConfigMadeInCodeHasTheSDKsDefaults() {
        let config = CleverTapInstanceConfig(accountId: "ACC", accountToken: "TOKEN", accountRegion: "eu1")
        #expect(config.accountRegion == "eu1" && config.proxyDomain == nil)
        #expect(config.enablePersonalization && !config.analyticsOnly && !config.useCustomCleverTapId)
        #expect(config.logLevel == .info && config.encryptionLevel == CleverTapEncryptionLevel.none)
    }

    // An instance for a second account, through a proxy: the image shows, and every event is recorded under
    // that account and route, sending nothing.
    @Test func aSecondAccountsInstanceRecordsUnderItsAccount() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(MultiAccountService.self, sdk: "clevertap", name: "image-ok.json", expiryGrace: .seconds(1))
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        let events = delivered.diagnostics.filter { $0.code == .sdkCleverTapEvent }.map(\.message)
        #expect(events.contains { $0.contains("\"Notification Viewed\"") && $0.contains("for account MKT-ACC-ID (instance(with:))") && $0.contains("through the proxy ct.example.com") }, "\(events)")
        // The image's size, read with UIKit names through CleverTapSDK alone.
        #expect(events.contains { $0.contains("\"Rich Push Rendered\" with 2 properties (height, width)") && $0.contains("analytics-only") }, "\(events)")
        #expect(events.contains { $0.contains("TEST-ACC-ID, proxy ct.example.com, spiky proxy spiky.ct.example.com") }, "\(events)")
    }
}
