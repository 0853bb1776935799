//
//  ConcurrentNotificationService.swift
//  The same extension in the style of Customer.io's newer samples: the configuration's values named with their
//  types from CioInternalCommon, the handler marked @Sendable, and the SDK's didReceive called from a Task.
//

import CioInternalCommon
import CioMessagingPushAPN
@preconcurrency import UserNotifications

class ConcurrentNotificationService: UNNotificationServiceExtension {
    private let logLevel: CioLogLevel = .debug
    private let region: Region = .US

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @Sendable @escaping (UNNotificationContent) -> Void) {
        let config: MessagingPushConfigOptions = MessagingPushConfigBuilder(cdpApiKey: "YOUR_CDP_API_KEY")
            .region(region)
            .logLevel(logLevel)
            .autoTrackPushEvents(true)
            .build()
        MessagingPushAPN.initializeForExtension(withConfig: config)

        Task { MessagingPush.shared.didReceive(request, withContentHandler: contentHandler) }
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
