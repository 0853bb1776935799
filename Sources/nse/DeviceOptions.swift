import ArgumentParser
import Foundation
import NSEKit

/// The device assumptions a user may change: the documented defaults are in the README.
struct DeviceOptions: ParsableArguments {
    @Option(name: .customLong("time-budget"), help: ArgumentHelp("Seconds the extension may run before iOS expires it.", valueName: "seconds"))
    var timeBudget: Double = 30

    @Flag(name: .customLong("allow-http"), help: "The extension's Info.plist has NSAllowsArbitraryLoads: allow plain http from every host.")
    var allowHTTP = false

    @Option(
        name: .customLong("info-plist"),
        help: ArgumentHelp("The extension's Info.plist: App Transport Security (NSAllowsArbitraryLoads, NSExceptionDomains) decides which hosts load over http.", valueName: "file"),
        transform: { path in
            do throws(TransportSecurityError) {
                return try TransportSecurity(infoPlist: URL(fileURLWithPath: path))
            } catch .unreadable(let reason) {
                throw ValidationError("--info-plist: cannot read \(reason).")
            }
        })
    var infoPlist: TransportSecurity?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse images with more pixels than this (decompression-bomb guard).", valueName: "count"))
    var maxPixels: UInt64 = 100_000_000

    @Option(name: .customLong("megabyte"), help: ArgumentHelp("Bytes per MB in Apple's attachment limits: 1000000 (default, stricter) or 1048576.", valueName: "bytes"))
    var megabyte = 1_000_000

    @Flag(name: .customLong("no-mime-extension"), help: "Assume suggestedFilename does NOT append an extension from the MIME type to an extensionless name.")
    var noMIMEExtension = false

    @Flag(name: .customLong("simulator-runs-extension"), help: "Judge .apns (simctl) files as a device would: run the extension, which the simulator does not.")
    var simulatorRunsExtension = false

    func validate() throws {
        guard timeBudget > 0, timeBudget <= 3600 else { throw ValidationError("--time-budget must be between 0 and 3600 seconds.") }
        guard megabyte == 1_000_000 || megabyte == 1_048_576 else { throw ValidationError("--megabyte must be 1000000 or 1048576.") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive.") }
    }

    var profile: DeviceProfile {
        var profile = DeviceProfile()
        profile.timeBudget = .milliseconds(Int64(timeBudget * 1000))
        profile.transportSecurity = infoPlist ?? TransportSecurity()
        if allowHTTP { profile.allowsHTTP = true }
        profile.maxPixels = maxPixels
        profile.megabyte = megabyte
        profile.suggestedFilenameAddsMIMEExtension = !noMIMEExtension
        profile.simulatorRunsExtension = simulatorRunsExtension
        return profile
    }
}

/// The content changes the built-in extension makes, like an extension's `didReceive` edits.
struct ContentChangeOptions: ParsableArguments {
    @Option(name: .customLong("title-suffix"), help: "Append this to the title, e.g. \" [modified]\".")
    var titleSuffix: String?
    @Option(help: "Replace the title.")
    var title: String?
    @Option(help: "Replace the subtitle.")
    var subtitle: String?
    @Option(help: "Replace the body.")
    var body: String?
    @Option(help: "Set the badge number.")
    var badge: Int?
    @Option(help: "Set the sound name (\"default\" for the system sound).")
    var sound: String?
    @Option(help: "Set the category identifier.")
    var category: String?
    @Option(name: .customLong("thread-id"), help: "Set the thread identifier.")
    var threadID: String?

    var changes: ContentChanges {
        ContentChanges(
            title: title, titleSuffix: titleSuffix, subtitle: subtitle, body: body, badge: badge, sound: sound,
            categoryIdentifier: category, threadIdentifier: threadID)
    }
}
