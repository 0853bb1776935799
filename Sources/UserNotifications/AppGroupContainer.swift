import Foundation

extension FileManager {
    /// The app group's shared container: the run's own folder, seeded from `ExtensionHarness.containerSeed`
    /// (`nse extension --container`). Every group identifier gets the same folder (an extension belongs to one
    /// group in practice). Outside a harness run, nil, as for an app without the entitlement.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        StandInRun.containerDirectory
    }
}

extension UserDefaults {
    /// `UserDefaults(suiteName: "group.com.example.app")` inside a run: the suite's file is
    /// `Library/Preferences/<suite>.plist` in the run's app-group container, where iOS keeps an app group's
    /// defaults, so a test seeds it through the container and the extension's writes stay in the run.
    /// (More specific than Foundation's `init?(suiteName: String?)`, so a call with a String comes here.)
    public convenience init?(suiteName suitename: String) {
        guard let container = StandInRun.containerDirectory, !suitename.contains("/"), suitename != ".", suitename != ".." else {
            self.init(suiteName: Optional(suitename))
            return
        }
        let preferences = container.appendingPathComponent("Library/Preferences", isDirectory: true)
        try? FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        // Foundation reads and writes `<path>.plist` for a suite named by an absolute path.
        self.init(suiteName: Optional(preferences.appendingPathComponent(suitename).path))
    }
}
