import NSEPipeline

/// The extension's process ended without a result (a crash: a force unwrap of nil, an index out of range, a
/// fatalError), or had to be stopped: on a phone iOS shows the original content. Run in place of the extension,
/// so the rest of the pipeline (lint, what the phone shows, the report) is the one every command uses.
public struct ExtensionCrash: ExtensionRunner {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
        state.diagnostics.append(.error(.extensionCrashed, "The extension's process \(reason) before its content handler's content was recorded: iOS shows the original content. Its output (above, on standard error) says where."))
        return .neverDelivered
    }
}
