import ArgumentParser
import NSEHarness
import NSEKit

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

    /// An SDK named explicitly must be in this build: otherwise a usage error, never a silent fallback.
    func validate() throws {
        if case .only(let named) = sdk, !BuiltInExtensions.isAvailable(named) {
            throw ValidationError("--sdk \(named.rawValue): \(named.displayName)'s helper is not in this build of nse (its stand-in module \(named.moduleName) is missing). Helpers in this build: \(BuiltInExtensions.available.map(\.rawValue).joined(separator: ", ")).")
        }
    }
}
