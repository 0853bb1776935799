// An Iterable extension from an app integrated with CocoaPods, whose IterableAppExtensions framework's umbrella
// header imports UIKit: the file imports only IterableAppExtensions, and names the image's size in the subtitle
// once Iterable has attached it.
import IterableAppExtensions

class SubtitledNotificationService: ITBNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        super.didReceive(request) { content in
            guard let url = content.attachments.first?.url, let image = UIImage(contentsOfFile: url.path),
                  let subtitled = content.mutableCopy() as? UNMutableNotificationContent else {
                contentHandler(content)
                return
            }
            subtitled.subtitle = "\(Int(image.size.width * image.scale)) px wide"
            contentHandler(subtitled)
        }
    }
}
