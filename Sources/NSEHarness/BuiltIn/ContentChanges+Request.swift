import NSEPipeline
import UserNotifications

extension ContentChanges {
    /// The request as an SDK's helper receives it from a built-in extension whose SDK takes the whole request (an
    /// empty subclass of the SDK's class): the content with these changes made first, as an app does that edits
    /// the content before calling `super.didReceive`. So an SDK that delivers "the original content" on failure
    /// delivers this one, changes included.
    func applied(to request: UNNotificationRequest) -> UNNotificationRequest {
        guard !isEmpty, let content = request.content.mutableCopy() as? UNMutableNotificationContent else { return request }
        content.apply(self)
        return UNNotificationRequest(identifier: request.identifier, content: content, trigger: request.trigger)
    }
}
