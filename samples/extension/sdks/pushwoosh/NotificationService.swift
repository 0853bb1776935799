//
//  NotificationService.swift
//  An app's Notification Service Extension, written as Pushwoosh's iOS documentation shows it (SDK 7.1+): a
//  subclass of PushwooshNotificationServiceExtension, here naming its App Group in code so `pw_badge` works.
//  This same file compiles on Linux against nse's stand-in for PushwooshFramework.
//

import PushwooshFramework

class NotificationService: PushwooshNotificationServiceExtension {

    override func pushwooshAppGroupsName() -> String? {
        "group.com.example.shop"
    }

}
