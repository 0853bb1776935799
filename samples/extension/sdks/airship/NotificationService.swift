//
//  NotificationService.swift
//  An app's Notification Service Extension, written as Airship's iOS documentation shows it: a subclass of
//  UANotificationServiceExtension, here overriding airshipConfig to log everything publicly (as Airship's sample
//  app does). This same file compiles on Linux against nse's stand-in for AirshipNotificationServiceExtension.
//

import AirshipNotificationServiceExtension

class NotificationService: UANotificationServiceExtension {

    override var airshipConfig: AirshipExtensionConfig {
        AirshipExtensionConfig(
            logLevel: .verbose,
            logHandler: .publicLogger
        )
    }

}
