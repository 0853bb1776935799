//
//  NotificationService.swift
//  An Iterable app's Notification Service Extension, exactly as Iterable's documentation and sample app show it
//  (Iterable/swift-sdk, sample-apps/swift-sample-app/swift-sample-app-notification-extension). This same file
//  compiles on Linux against nse's IterableAppExtensions module.
//

import IterableAppExtensions
import UserNotifications

class NotificationService: ITBNotificationServiceExtension {}
