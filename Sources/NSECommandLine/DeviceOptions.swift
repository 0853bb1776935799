import Foundation
import ArgumentParser
import NSEPipeline
import NSEPush

/// The device assumptions a user may change: the documented defaults are in the README.
package struct DeviceOptions: ParsableArguments {
    package init() {}

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
    var maxPixels: UInt64 = ImageDecodeLimits().maxPixels

    @Option(name: .customLong("max-decode-memory"), help: ArgumentHelp("Memory one image check may take, in MiB: a progressive or multi-scan JPEG needing more (its whole-image coefficient buffer), or a PNG with wider rows, is reported, not judged.", valueName: "MiB"))
    var maxDecodeMemory: UInt64 = ImageDecodeLimits().maxMemory / 1_048_576

    @Option(name: .customLong("max-pixel-work"), help: ArgumentHelp("Pixels one image check may decode, summed over GIF frames and JPEG scans.", valueName: "count"))
    var maxPixelWork: UInt64 = ImageDecodeLimits().maxPixelWork

    @Option(name: .customLong("max-frames"), help: ArgumentHelp("GIF frames one image check may decode.", valueName: "count"))
    var maxFrames: UInt32 = ImageDecodeLimits().maxFrames

    @Option(name: .customLong("max-scans"), help: ArgumentHelp("JPEG scans one image check may decode.", valueName: "count"))
    var maxScans: UInt32 = ImageDecodeLimits().maxScans

    @Option(name: .customLong("megabyte"), help: ArgumentHelp("Bytes per MB in Apple's attachment limits, when you know it: 1000000 or 1048576. Unset, a file between the two readings' limits passes with a warning.", valueName: "bytes"))
    var megabyte: Int?

    @Flag(name: .customLong("no-mime-extension"), help: "Assume suggestedFilename does NOT append an extension from the MIME type to an extensionless name.")
    var noMIMEExtension = false

    @Flag(name: .customLong("no-mime-type-hint"), help: "Assume iOS ignores a type hint that is a MIME type (image/jpeg) rather than a UTI: the attachment goes by its file extension.")
    var noMIMETypeHint = false

    @Flag(name: .customLong("simulator-runs-extension"), help: "Judge .apns (simctl) files as a device would: run the extension, which the simulator does not.")
    var simulatorRunsExtension = false

    package func validate() throws {
        guard timeBudget > 0, timeBudget <= 3600 else { throw ValidationError("--time-budget must be between 0 and 3600 seconds.") }
        guard megabyte == nil || megabyte == 1_000_000 || megabyte == 1_048_576 else { throw ValidationError("--megabyte must be 1000000 or 1048576.") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive.") }
        // 1 MiB: below it even a small PNG's zlib state and libjpeg's tables do not fit; 1 TiB keeps bytes in UInt64.
        guard (1...1_048_576).contains(maxDecodeMemory) else { throw ValidationError("--max-decode-memory must be between 1 and 1048576 MiB.") }
        guard maxPixelWork > 0 else { throw ValidationError("--max-pixel-work must be positive.") }
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive.") }
        guard maxScans > 0 else { throw ValidationError("--max-scans must be positive.") }
    }

    package var profile: DeviceProfile {
        var profile = DeviceProfile()
        profile.timeBudget = .milliseconds(Int64(timeBudget * 1000))
        profile.transportSecurity = infoPlist ?? TransportSecurity()
        if allowHTTP { profile.allowsHTTP = true }
        profile.maxPixels = maxPixels
        profile.imageLimits.maxMemory = maxDecodeMemory * 1_048_576
        profile.imageLimits.maxPixelWork = maxPixelWork
        profile.imageLimits.maxFrames = maxFrames
        profile.imageLimits.maxScans = maxScans
        profile.megabyte = megabyte ?? 1_000_000
        profile.megabyteIsKnown = megabyte != nil
        profile.suggestedFilenameAddsMIMEExtension = !noMIMEExtension
        profile.simulatorRunsExtension = simulatorRunsExtension
        profile.typeHintReadsMIMEType = !noMIMETypeHint
        return profile
    }
}

/// The content changes the built-in extension makes, like an extension's `didReceive` edits.
package struct ContentChangeOptions: ParsableArguments {
    package init() {}

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

    package var changes: ContentChanges {
        ContentChanges(
            title: title, titleSuffix: titleSuffix, subtitle: subtitle, body: body, badge: badge, sound: sound,
            categoryIdentifier: category, threadIdentifier: threadID)
    }
}
