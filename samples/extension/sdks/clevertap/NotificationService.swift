//
//  NotificationService.swift
//  A CleverTap app's Notification Service Extension, written as CleverTap's starter app shows it
//  (clevertap-ios-sdk, SwiftUIStarter/NotificationService): record the push impression, then let
//  CTNotificationServiceExtension attach `ct_mediaUrl`. This same file compiles on Linux against nse's
//  CTNotificationService and CleverTapSDK modules.
//

import CTNotificationService
import CleverTapSDK

class NotificationService: CTNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        CleverTap.setDebugLevel(CleverTapLogLevel.debug.rawValue)
        // While running the Application add CleverTap Account ID and Account token in your .plist file
        // call to record the Notification viewed
        CleverTap.sharedInstance()?.recordNotificationViewedEvent(withData: request.content.userInfo)
        super.didReceive(request, withContentHandler: contentHandler)
    }
}
