import NSEMedia
import NSEPipeline
import NSEPush
import UserNotifications

/// Runs the built-in extension of the SDK that `--sdk` names, or that the payload's keys point to
/// (`SDKDetection`), through `HarnessRunner`, and records which helper ran and why.
struct BuiltInHelperRunner: ExtensionRunner {
    /// `.only(sdk)` or `.auto`; `.all` is a comparison of several runs (`SDKComparison`), not one run.
    let selection: SDKSelection
    let changes: ContentChanges

    var changesContent: Bool { !changes.isEmpty }

    func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
        // The pipeline made the plan before the run; a caller that did not gets the same choice here.
        let (choice, findings) = state.plan.helper.map { ($0, state.plan.findings) } ?? Self.choose(selection, for: state.original.userInfo)
        state.helper = choice
        state.diagnostics += findings
        let changes = changes
        let sdk = choice.sdk
        // Memory is not measured: the built-in extensions stream to disk, and batch runs extensions concurrently.
        var runner = HarnessRunner(memoryMeasurement: .off, changesContent: !changes.isEmpty) {
            BuiltInExtensions.make(sdk, changes: changes)
        }
        // The command line's own extension: its requests and handler calls are the emulator's, not the user's.
        runner.reportsActivity = false
        return await runner.run(&state, context: context)
    }

    /// The helper the selection and the payload's keys choose. Firebase's helper downloads `fcm_options.image`,
    /// which the content changes never touch; the other helpers' downloads are not predicted.
    func plan(for original: NotificationContent, checks: CheckReport, profile: DeviceProfile) -> ExtensionPlan {
        let (choice, findings) = Self.choose(selection, for: original.userInfo)
        var plan = ExtensionPlan(helper: choice, findings: findings)
        if choice.sdk == .firebase {
            // The checks' request, decided once: the helper's run takes the same decision.
            let image = FirebaseImageHelper.decide(checks.imageRequest, profile: profile)
            plan.image = image
            plan.download = FirebaseImageHelper.plannedDownload(image, profile: profile)
        }
        return plan
    }

    static func choose(_ selection: SDKSelection, for payload: [String: JSONValue]) -> (HelperChoice, [Diagnostic]) {
        switch selection {
        case .only(let sdk):
            let matched = SDKDetection.matches(in: payload).map(\.sdk)
            return (HelperChoice(sdk: sdk, selection: .explicit, reason: "--sdk \(sdk.rawValue)", matched: matched), [])
        case .auto, .all:
            let (choice, warning) = SDKDetection.choose(for: payload)
            return (choice, warning.map { [$0] } ?? [])
        }
    }
}

extension Pipeline {
    /// The pipeline with the built-in extension: the given content changes, then the helper of the SDK
    /// `sdk` selects (`.auto`: detected from the payload's keys, Firebase's when none), run by the same
    /// harness that runs an app's own extension.
    public init(
        device: DeviceProfile = DeviceProfile(), changes: ContentChanges = ContentChanges(), hostMapping: MediaHostMapping? = nil,
        sdk: SDKSelection = .auto
    ) {
        self.init(device: device, extensionRunner: BuiltInHelperRunner(selection: sdk, changes: changes), hostMapping: hostMapping)
    }

    @available(*, deprecated, renamed: "init(device:changes:hostMapping:sdk:)")
    public init(profile: DeviceProfile, changes: ContentChanges = ContentChanges(), hostMapping: MediaHostMapping? = nil, sdk: SDKSelection = .auto) {
        self.init(device: profile, changes: changes, hostMapping: hostMapping, sdk: sdk)
    }
}
