// A Customer.io extension that takes its region from a build setting's string (Region.getRegion(from:)), logs the
// SDK's version, and also reports the "delivered" metric itself through the instance initializeForExtension
// returns, as some apps do (MessagingPushInstance.trackMetric).
import CioInternalCommon
import CioMessagingPushAPN
import UserNotifications

class TrackingNotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let region = Region.getRegion(from: "eu")
        print("Customer.io SDK \(SdkVersion.version), region \(region.rawValue)")
        let messaging = MessagingPushAPN.initializeForExtension(
            withConfig: MessagingPushConfigBuilder(cdpApiKey: "YOUR_CDP_API_KEY")
                .region(region)
                .logLevel(.info)
                .build()
        )
        if let deliveryID = request.content.userInfo["CIO-Delivery-ID"] as? String,
           let token = request.content.userInfo["CIO-Delivery-Token"] as? String,
           let event = Metric.getEvent(from: "DELIVERED") {
            messaging.trackMetric(deliveryID: deliveryID, event: event, deviceToken: token)
        }
        messaging.didReceive(request, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
