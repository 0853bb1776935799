import ArgumentParser
import NSEHarness
import NSEPush

extension SDKSelection: ExpressibleByArgument {
    public static var allValueStrings: [String] { argumentValues }
    public var defaultValueDescription: String { description }
}

/// `--sdk`, shared by process, batch and extension: which SDK's extension helper runs (docs/sdks.md).
struct SDKOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The push SDK whose extension helper runs: \(PushSDK.allCases.map(\.rawValue).joined(separator: ", ")); auto (detect from the payload's keys, Firebase when none) or all (every helper side by side).",
        valueName: "sdk"))
    var sdk: SDKSelection = .auto
}
