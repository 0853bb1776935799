// swift-tools-version: 6.0
import PackageDescription

// The push SDKs' extension helpers (docs/sdks.md): every module of each SDK's stand-in (`SDKDescriptor.modules` in
// Sources/NSEPush/SDK/SDKDescriptor.swift, checked by Tests/UnitTests/SDKDescriptorTests), with the SDK's own module
// name. The one list the harness product, its target and its tests read.
let sdkModules = [
    "FirebaseMessaging", "FirebaseCore", "OneSignalExtension",
    "BrazeNotificationService", "CTNotificationService", "CleverTapSDK", "IterableAppExtensions",
    "CioInternalCommon", "CioMessagingPush", "CioMessagingPushAPN", "CioMessagingPushFCM",
    "Mixpanel", "AirshipNotificationServiceExtension", "PushwooshFramework", "PushwooshNotificationUI", "BatchExtension",
    "NotificareNotificationServiceExtensionKit",
]
// Apple's other frameworks an extension imports, each a stand-in.
let frameworkModules = ["os", "OSLog", "UIKit", "UniformTypeIdentifiers", "Intents"]
// Swift Testing's cross-import overlay for UIKit, which Apple's toolchains ship and Linux's names without shipping:
// a test file that imports Testing and UIKit (or a module re-exporting it, as CleverTapSDK does) needs it.
let testingOverlays = ["_Testing_UIKit"]

let package = Package(
    name: "nse",
    products: [
        .library(name: "NSEKit", targets: ["NSEKit"]),
        .library(name: "NSEMediaServer", targets: ["NSEMediaServer"]),
        // Compile an app's own NotificationService.swift on Linux and run it: these two modules stand in for
        // Apple's and Firebase's of the same names; NSEHarness runs the extension as iOS would.
        .library(
            name: "NSEHarness",
            targets: ["NSEHarness", "UserNotifications"] + frameworkModules + sdkModules + testingOverlays
        ),
        .executable(name: "nse", targets: ["nse"]),
        // `nse serve`'s server, which `nse serve` runs in its place: nse itself does not link SwiftNIO.
        .executable(name: "nse-serve", targets: ["nse-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `nse serve` (Sources/NSEServer): HTTP/1.1 and HTTP/2 from SwiftNIO, no hand-written protocol code.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // `nse serve --tls-port`: TLS with ALPN, its certificate signed by a CA made in the data folder.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // System libraries, found with pkg-config; `providers` names the Debian packages to install.
        // libcurl's headers only: nse loads the library when it first downloads (Sources/CNSE/curl_library.c).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // ISA-L (igzip): streaming inflate and CRC-32 for the PNG checker's image data, about 3 times as fast as zlib.
        .systemLibrary(name: "CISAL", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        // Typed C functions over the parts Swift cannot call safely: variadics, macros, setjmp/longjmp.
        .target(name: "CNSE", dependencies: ["CCurl", "CPNG", "CJPEG", "CGIF", "CISAL"]),
        // Real encoders (libpng, libjpeg, giflib) that tests and the benchmark use to make their images.
        .target(name: "CImageFixtures", dependencies: ["CPNG", "CJPEG", "CGIF"]),
        // glibc functions Swift's Glibc module does not declare: posix_spawn's closefrom and chdir actions,
        // pipe2, mallopt. Not `CSystem`: swift-system, which SwiftNIO depends on, has a target of that name.
        .target(name: "CNSESystem"),
        // The process's one executor for blocking work, and what waits on it (latch, single-flight, lanes);
        // child processes (posix_spawn, not Foundation's Process).
        .target(name: "NSEConcurrency", dependencies: ["CNSESystem"]),
        // The library, in layers; each imports only those above it here (docs/design.md; checked by
        // Tests/UnitTests/LayerTests). NSEKit re-exports all five for apps' test targets.
        .target(name: "NSEPush"),
        .target(name: "NSEMedia", dependencies: ["NSEPush", "CNSE", "CCurl", "CCrypto", "NSEConcurrency"]),
        .target(name: "NSEPipeline", dependencies: ["NSEPush", "NSEMedia", "NSEConcurrency"]),
        .target(name: "NSEReports", dependencies: ["NSEPush", "NSEMedia", "NSEPipeline", "NSEConcurrency", "CNSE"]),
        .target(name: "NSEBatch", dependencies: ["NSEPush", "NSEMedia", "NSEPipeline", "NSEReports", "NSEConcurrency"]),
        .target(name: "NSEKit", dependencies: ["NSEPush", "NSEMedia", "NSEPipeline", "NSEReports", "NSEBatch"]),
        // The push model for its JSON value (pure: no I/O, no threads).
        .target(name: "NSEMediaServer", dependencies: ["NSEConcurrency", "NSEPush"]),
        // `nse serve`: APNs's and FCM's endpoints in front of emulated phones that run the push pipeline.
        .target(
            name: "NSEServer",
            dependencies: [
                "NSEKit", "NSEHarness", "NSEConcurrency",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(name: "UserNotifications", dependencies: ["NSEKit", "NSEConcurrency", "os"]),
        .target(name: "FirebaseMessaging", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "FirebaseCore", dependencies: ["UserNotifications", "NSEKit"]),
        // Stand-ins for the other frameworks real extensions import: logging (`os`, `OSLog`), `UIImage`,
        // `UTType`, and communication notifications (`Intents`). Each records to the run through
        // UserNotifications, except `os`, which depends on nothing: packages that test `#if canImport(os)`
        // (swift-argument-parser) import it too, and find the `os_unfair_lock` they expect.
        .target(name: "os"),
        .target(name: "OSLog", dependencies: ["os"]),
        .target(name: "UIKit", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "UniformTypeIdentifiers", dependencies: ["NSEKit"]),
        .target(name: "Intents", dependencies: ["UserNotifications", "NSEKit"]),
        // `@_exported import Testing`, as an overlay must: the compiler reads it in place of Testing in such a file.
        .target(name: "_Testing_UIKit"),
        // The push SDKs' extension helpers, with the SDKs' own module and type names (docs/sdks.md).
        .target(name: "OneSignalExtension", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "BrazeNotificationService", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "CTNotificationService", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "CleverTapSDK", dependencies: ["UserNotifications", "NSEKit", "UIKit"]),
        .target(name: "IterableAppExtensions", dependencies: ["UserNotifications", "NSEKit", "UIKit"]),
        .target(name: "CioInternalCommon"),
        .target(name: "CioMessagingPush", dependencies: ["CioInternalCommon", "UserNotifications", "NSEKit"]),
        .target(name: "CioMessagingPushAPN", dependencies: ["CioMessagingPush", "CioInternalCommon", "UserNotifications"]),
        .target(name: "CioMessagingPushFCM", dependencies: ["CioMessagingPush", "CioInternalCommon", "UserNotifications"]),
        .target(name: "Mixpanel", dependencies: ["UserNotifications", "NSEKit", "UIKit"]),
        .target(name: "AirshipNotificationServiceExtension", dependencies: ["UserNotifications", "NSEKit", "UniformTypeIdentifiers", "os"]),
        .target(name: "PushwooshFramework", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "PushwooshNotificationUI", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "BatchExtension", dependencies: ["UserNotifications", "NSEKit"]),
        .target(name: "NotificareNotificationServiceExtensionKit", dependencies: ["UserNotifications", "NSEKit", "UniformTypeIdentifiers"]),
        .target(
            name: "NSEHarness",
            dependencies: ["UserNotifications", "NSEKit", "NSEConcurrency", "NSEMediaServer"] + sdkModules.map { .target(name: $0) }
        ),
        // The options `nse` and `nse-serve` share (`nse serve`'s among them), and what both set at start: never
        // the server, so nse links no SwiftNIO.
        .target(
            name: "NSECommandLine",
            dependencies: [
                "NSEPush", "NSEMedia", "NSEPipeline", "NSEMediaServer", "CNSESystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "nse",
            dependencies: [
                "NSEKit", "NSEHarness", "NSEMediaServer", "NSECommandLine", "NSEConcurrency",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `nse serve`'s server (Sources/NSEServer) as a program: `nse serve` checks the options and runs it.
        .executableTarget(
            name: "nse-serve",
            dependencies: [
                "NSEServer", "NSECommandLine", "NSEMediaServer", "NSEConcurrency",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // jemalloc in place of glibc's malloc, for the whole process: a push is allocated on one thread (the
            // event loop's) and freed on another (the cooperative pool's), which glibc's arenas pay for in locks.
            // A third less CPU a push (docs/performance.md, "The allocator").
            linkerSettings: [.linkedLibrary("jemalloc")]
        ),
        // `make bench`: generates a corpus, serves it on loopback, measures the release `nse` binary.
        .executableTarget(
            name: "nse-bench",
            dependencies: [
                "NSEKit", "NSEMediaServer", "NSEConcurrency", "CImageFixtures", "NSEServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `make bench-serve`'s ceiling: SwiftNIO's HTTP/1.1 and HTTP/2 answering 200 without a check, beside `nse serve`.
        .executableTarget(
            name: "nse-serve-ceiling",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // `make fuzz`: the code paths fed with random bytes, one entry point each, shared with the test that
        // replays Fuzz/regressions; `nse-fuzz` drives them (with libFuzzer only in the build `make fuzz` makes).
        .target(name: "NSEFuzzTargets", dependencies: ["NSEKit"]),
        .executableTarget(name: "nse-fuzz", dependencies: ["NSEFuzzTargets"]),
        // Tests by kind (docs/design.md): unit tests open no socket, start no process and read no clock.
        .testTarget(name: "UnitTests", dependencies: ["NSEKit", "NSEPush", "NSEMedia", "NSEPipeline", "NSEReports", "NSEHarness", "NSETestSupport"]),
        .testTarget(name: "NSEConcurrencyTests", dependencies: ["NSEConcurrency"]),
        .testTarget(
            name: "NSEKitTests",
            dependencies: ["NSEKit", "NSEHarness", "NSEMediaServer", "NSEConcurrency", "NSEFuzzTargets", "NSETestSupport", "SDKTestSupport", "CNSE", "CImageFixtures", "CCurl"]
        ),
        .testTarget(name: "NSEMediaServerTests", dependencies: ["NSEMediaServer"]),
        // `nse serve` in-process on loopback, driven by real clients (curl, firebase-admin, httpx).
        .testTarget(
            name: "NSEServerTests",
            dependencies: ["NSEServer", "NSEKit", "NSEConcurrency", "NSEMedia", "NSEMediaServer", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Clients"]
        ),
        // Runs the built `nse` and `nse-serve` executables as a user would.
        // Helpers the test targets share: the JUnit parser, comparing documented examples with real output, the
        // fixed results the renderers' snapshots are made from, a test run again in a process of its own (`OwnProcess`).
        .target(name: "NSETestSupport", dependencies: ["NSEPush", "NSEMedia", "NSEPipeline", "NSEReports", "NSEConcurrency"], path: "Tests/NSETestSupport"),
        .testTarget(name: "NSECommandTests", dependencies: ["nse", "nse-serve", "NSEKit", "NSEHarness", "NSEMediaServer", "NSEConcurrency", "NSETestSupport"]),
        .testTarget(
            name: "NSEHarnessTests",
            dependencies: [
                "UserNotifications", "NSEHarness", "NSEKit", "NSEMediaServer", "NSEConcurrency", "CImageFixtures",
                "SDKTestSupport", "NSETestSupport",
            ] + sdkModules.map { .target(name: $0) }
        ),
        // Extensions written as apps write them, compiled as Xcode compiles app code (Swift 5 mode), run by the
        // harness; and the framework stand-ins' own tests.
        .testTarget(
            name: "RealExtensionTests",
            dependencies: [
                "NSEHarness", "NSEKit", "NSEMediaServer", "CImageFixtures",
                "UserNotifications", "FirebaseMessaging", "FirebaseCore",
            ] + (frameworkModules + testingOverlays).map { .target(name: $0) },
            // Scripts that stand for a built extension's program, run by path.
            exclude: ["Programs"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Extension files written the way public apps write them (URLSession, Data(contentsOf:)), compiled in
        // Swift 5 mode as Xcode compiles app code, run by the harness against a loopback server.
        .testTarget(
            name: "AppExtensionTests",
            dependencies: ["UserNotifications", "NSEHarness", "NSEKit", "NSEMediaServer", "CImageFixtures"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The README's example: an app's NotificationService.swift, unchanged, tested on Linux.
        .testTarget(
            name: "ExampleExtensionTests",
            dependencies: ["UserNotifications", "FirebaseMessaging", "NSEHarness", "NSEKit", "NSEMediaServer"],
            path: "samples/extension",
            exclude: ["sdks"]
        ),
        // Each SDK's documented extension file, compiled unchanged (Swift 5 mode, as Xcode compiles app code) and
        // run by the harness over that SDK's samples (samples/sdks/<name>).
        .testTarget(
            name: "OneSignalExtensionTests",
            dependencies: ["OneSignalExtension", "NSEHarness", "SDKTestSupport"],
            path: "samples/extension/sdks/onesignal",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "BrazeExtensionTests",
            dependencies: ["BrazeNotificationService", "NSEHarness", "SDKTestSupport"],
            path: "samples/extension/sdks/braze",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "CleverTapExtensionTests",
            dependencies: ["CTNotificationService", "CleverTapSDK", "NSEHarness", "NSEKit", "SDKTestSupport"],
            path: "samples/extension/sdks/clevertap",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "IterableExtensionTests",
            dependencies: ["IterableAppExtensions", "NSEHarness", "SDKTestSupport"],
            path: "samples/extension/sdks/iterable",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "CustomerIOExtensionTests",
            dependencies: ["CioMessagingPushAPN", "CioMessagingPushFCM", "CioMessagingPush", "CioInternalCommon", "NSEHarness", "SDKTestSupport", "NSETestSupport"],
            path: "samples/extension/sdks/customerio",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The SDK samples (samples/sdks) and the command line's path for `--sdk`, shared by the SDK tests.
        .target(
            name: "SDKTestSupport",
            dependencies: ["NSEHarness", "NSEKit", "NSEMediaServer", "UserNotifications"] + testingOverlays.map { .target(name: $0) },
            path: "Tests/SDKTestSupport"
        ),
        .testTarget(
            name: "MixpanelExtensionTests",
            dependencies: ["NSEHarness", "NSEKit", "Mixpanel", "SDKTestSupport"],
            path: "samples/extension/sdks/mixpanel",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "AirshipExtensionTests",
            dependencies: ["NSEHarness", "NSEKit", "AirshipNotificationServiceExtension", "SDKTestSupport"],
            path: "samples/extension/sdks/airship",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PushwooshExtensionTests",
            dependencies: ["NSEHarness", "NSEKit", "PushwooshFramework", "PushwooshNotificationUI", "SDKTestSupport"],
            path: "samples/extension/sdks/pushwoosh",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "BatchExtensionTests",
            dependencies: ["NSEHarness", "NSEKit", "BatchExtension", "SDKTestSupport"],
            path: "samples/extension/sdks/batch",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "NotificareExtensionTests",
            dependencies: ["NSEHarness", "NSEKit", "NotificareNotificationServiceExtensionKit", "SDKTestSupport"],
            path: "samples/extension/sdks/notificare",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// A member (a method of an extension, a case) is visible only through a module the file imports (SE-0444): without
// it, a file could use a lower layer's extension through another import, the build would not record that it depends
// on that module, and an incremental build after a change there linked stale code. Not for the targets that compile
// extension files as apps write them (`...ExtensionTests`): those must build as they do in Xcode.
for target in package.targets where target.type != .system && !target.name.hasSuffix("ExtensionTests") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
