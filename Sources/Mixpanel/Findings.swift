import NSEPush

/// What the run reports about Mixpanel's helper: every message in one table, the logic stays in the helper.
/// Rules read in mixpanel-iphone 3.x (`Mixpanel/MPNotificationServiceExtension.m`, `Mixpanel/Mixpanel.m`).
enum MixpanelFindings {
    static func notMixpanel(hasMedia: Bool) -> Diagnostic {
        let what = "The payload has no `mp` key, so MPNotificationServiceExtension delivers the content unchanged at once"
        return hasMedia
            ? .warning(.sdkMixpanelNotMixpanel, "\(what): `mp_media_url` is ignored. Send the push from Mixpanel (it adds `mp`), or add an `mp` dictionary.")
            : .info(.sdkMixpanelNotMixpanel, "\(what) (no image, no buttons).")
    }

    static func notTracked(_ event: String, missing: String) -> Diagnostic {
        .warning(.sdkMixpanelTracking, "Mixpanel does not track \(event): the payload's `mp` dictionary has no `\(missing)` (the SDK logs it and moves on). Pushes sent by Mixpanel carry it.")
    }

    static func trackedCall(_ event: String, properties: Int, superProperties: Int, hasToken: Bool) -> Diagnostic {
        guard hasToken else {
            return .warning(.sdkMixpanelTracking, "Mixpanel does not send \(event): the instance has an empty project token. Pass the project's token to sharedInstance(withToken:).")
        }
        let supers = superProperties == 0 ? "" : " and \(superProperties) super propert\(superProperties == 1 ? "y" : "ies")"
        return .info(.sdkMixpanelTracking, "Mixpanel would track \(event) with \(properties) propert\(properties == 1 ? "y" : "ies")\(supers) and flush it to https://api.mixpanel.com at once, as it does in an app extension (recorded, not sent).")
    }

    static func peopleUpdate(_ operation: String, _ what: String, hasToken: Bool) -> Diagnostic {
        guard hasToken else {
            return .warning(.sdkMixpanelTracking, "Mixpanel does not send the people update (\(operation) \(what)): the instance has an empty project token. Pass the project's token to sharedInstance(withToken:).")
        }
        return .info(.sdkMixpanelTracking, "Mixpanel would send a people update (\(operation) \(what)) for the identified user to https://api.mixpanel.com/engage from the extension (recorded, not sent).")
    }

    /// Property names as a message lists them: sorted, comma-separated.
    static func names(_ keys: some Collection<String>) -> String {
        keys.sorted().joined(separator: ", ")
    }

    static func tracked(_ event: String, campaign: String, message: String) -> Diagnostic {
        .info(.sdkMixpanelTracking, "Mixpanel would track \(event) (campaign_id \(campaign), message_id \(message)) and flush it to https://api.mixpanel.com from the extension (recorded, not sent).")
    }

    static func payloadCategory(_ identifier: String) -> Diagnostic {
        .info(.sdkMixpanelButtons, "The payload names its category \"\(identifier)\": Mixpanel uses it and creates no buttons from `mp_buttons`.")
    }

    static func createdCategory(_ identifier: String, titles: [String], untitled: Int) -> Diagnostic {
        let buttons = titles.isEmpty ? "no buttons" : "buttons " + titles.map { "\"\($0)\"" }.joined(separator: ", ")
        let note = untitled > 0 ? " \(untitled) `mp_buttons` entr\(untitled == 1 ? "y has" : "ies have") no string `lbl`: assumed to show an empty title (the SDK passes nil where iOS expects a title)." : ""
        return .info(.sdkMixpanelButtons, "Mixpanel registers category \"\(identifier)\" (named after the time, with a custom dismiss action) with \(buttons) from `mp_buttons`, each opening the app, and gives it to the notification.\(note)")
    }

    static let buttonsNotArray = Diagnostic.error(.sdkMixpanelCrash, "`mp_buttons` is not an array: Mixpanel enumerates it as one, which raises an unrecognized-selector exception: the extension crashes and iOS shows the original content. Send `mp_buttons` as an array of {\"lbl\": ...}.")

    static let mediaURLNotString = Diagnostic.error(.sdkMixpanelCrash, "`mp_media_url` is not a string: Mixpanel asks it for its pathExtension, which raises an unrecognized-selector exception: the extension crashes and iOS shows the original content.")

    static func nilAttachment(_ url: String, fileExtension: String) -> Diagnostic {
        let saved = fileExtension.isEmpty
            ? "The URL has no path extension, so the file was saved with a bare \".\" and cannot be attached."
            : "The file was saved as .\(fileExtension) (the extension of the URL string\(fileExtension.contains("?") || fileExtension.contains("#") ? ", query included" : ""))."
        return .error(.sdkMixpanelCrash, "Mixpanel got no attachment for \(url) (the download or UNNotificationAttachment failed; see above). \(saved) It then puts nil into [NSArray arrayWithObject:], which raises NSInvalidArgumentException: the extension crashes and iOS shows the original content, without the buttons. Serve the image at a URL ending in .jpg, .png or .gif, with no query string.")
    }

    /// `-[NSString pathExtension]` of the whole URL string, as the SDK takes it: what follows the last "." of
    /// the last "/"-separated component, query and fragment included.
    static func pathExtension(ofURLString string: String) -> String {
        let last = string.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "" }
        return String(last[last.index(after: dot)...])
    }
}
