// A CleverTap extension for an app with a second CleverTap account (CleverTap.h's instanceWithConfig:), whose
// events go through the app's own proxy domain, and which records the size of the image CleverTap attached.
import CTNotificationService
import CleverTapSDK

class MultiAccountService: CTNotificationServiceExtension {
    private lazy var marketing: CleverTap = {
        let config = CleverTapInstanceConfig(accountId: "MKT-ACC-ID", accountToken: "MKT-TOKEN", proxyDomain: "ct.example.com")
        config.logLevel = .debug
        config.analyticsOnly = true
        return CleverTap.instance(with: config)
    }()

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        CleverTap.setCredentialsWithAccountID("TEST-ACC-ID", token: "TEST-TOKEN", proxyDomain: "ct.example.com", spikyProxyDomain: "spiky.ct.example.com")
        marketing.recordNotificationViewedEvent(withData: request.content.userInfo)
        super.didReceive(request) { content in
            let size = AttachedImage.pixelSize(of: content.attachments.first?.url)
            self.marketing.recordEvent("Rich Push Rendered", withProps: ["width": size?.width ?? 0, "height": size?.height ?? 0])
            contentHandler(content)
        }
    }
}
