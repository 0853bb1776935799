//
//  NotificationService.swift
//  A Customer.io app's Notification Service Extension, written as Customer.io's documentation shows it
//  (customerio-ios, Apps/APN-UIKit/NotificationServiceExtension). This same file compiles on Linux against nse's
//  CioMessagingPushAPN module.
//

import CioMessagingPushAPN
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        MessagingPushAPN.initializeForExtension(
            withConfig: MessagingPushConfigBuilder(cdpApiKey: "YOUR_CDP_API_KEY")
                .region(.US)
                .logLevel(.debug)
                .build()
        )

        MessagingPush.shared.didReceive(request, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
