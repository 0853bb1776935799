//
//  NotificationService.swift
//  An app's Notification Service Extension, written as Batch's iOS documentation shows it: an empty subclass of
//  BAENotificationServiceExtension. This same file compiles on Linux against nse's stand-in for BatchExtension.
//

import BatchExtension

class NotificationService: BAENotificationServiceExtension {

}
