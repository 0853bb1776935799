//
//  NotificationService.swift
//  A Braze app's Notification Service Extension, exactly as Braze's documentation shows it
//  (braze-swift-sdk, BrazeNotificationService.NotificationService). This same file compiles on Linux against
//  nse's BrazeNotificationService module.
//

import BrazeNotificationService

class NotificationService: BrazeNotificationService.NotificationService {}
