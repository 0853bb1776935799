// A CleverTap extension that sets the account in code (CleverTap.h's setCredentialsWithAccountID:token:region:)
// rather than in its Info.plist, and logs in under its own CleverTap ID.
import CTNotificationService
import CleverTapSDK

class CredentialsInCodeService: CTNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        CleverTap.setCredentialsWithAccountID("TEST-ACC-ID", token: "TEST-TOKEN", region: "eu1")
        CleverTap.sharedInstance(withCleverTapID: "user-42")?.onUserLogin(["Identity": "42"], withCleverTapID: "user-42")
        CleverTap.sharedInstance()?.recordNotificationViewedEvent(withData: request.content.userInfo)
        super.didReceive(request, withContentHandler: contentHandler)
    }
}
