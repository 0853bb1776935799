//
//  NotificationService.swift
//  An app's Notification Service Extension, written as Mixpanel's iOS documentation shows it for rich push
//  (mixpanel-iphone 3.x): an empty subclass of MPNotificationServiceExtension. This same file compiles on Linux
//  against nse's stand-in for the Mixpanel module.
//

import Mixpanel

class NotificationService: MPNotificationServiceExtension {

}
