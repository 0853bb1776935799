//
//  StoriesNotificationService.swift
//  A Pushwoosh extension that also prepares "stories" for its content extension: it imports
//  PushwooshNotificationUI beside PushwooshFramework and prefetches the story images into its App Group before
//  Pushwoosh processes the push. This same file compiles on Linux against nse's stand-ins for both modules.
//

import UserNotifications
import PushwooshFramework
import PushwooshNotificationUI

class StoriesNotificationService: PushwooshNotificationServiceExtension {

    private let storiesAppGroup = "group.com.example.stories"

    override func pushwooshAppGroupsName() -> String? {
        "group.com.example.shop"
    }

    override func pushwooshPrepare(for request: UNNotificationRequest, completion: @escaping () -> Void) {
        guard request.content.userInfo["pw_stories"] != nil else {
            completion()
            return
        }
        PushwooshStoriesMediaPrefetcher.prefetch(userInfo: request.content.userInfo, appGroupIdentifier: storiesAppGroup) {
            completion()
        }
    }

}
