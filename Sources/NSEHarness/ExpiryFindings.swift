import NSEPush

/// What the run says when the budget ran out before the content handler was called.
enum ExpiryFindings {
    static func timeExpired(budget: Duration) -> Diagnostic {
        .error(.extensionTimeExpired, "The extension did not call its content handler within the \(budget.secondsText) budget, so iOS called serviceExtensionTimeWillExpire(): the phone shows what that delivers (Apple's template: the best attempt, without the image).")
    }

    /// On a device the expiry call's content is shown with its attachments: the image arrives, but late.
    static func deliveredLate(budget: Duration) -> Diagnostic {
        .warning(.extensionTimeExpired, "The extension called its content handler only from serviceExtensionTimeWillExpire(), after the \(budget.secondsText) budget: the phone shows that content with its image, but the notification waits the whole \(budget.secondsText) first. Call the content handler as soon as the attachment is set.")
    }
}
