import Foundation
import NSEPush
import NSETestSupport
import Testing

/// An SDK is one descriptor (`SDKDescriptor.all`) plus its stand-in module and its built-in extension: these tests
/// hold the places that list the SDKs by hand (Package.swift's `sdkModules`, docs/sdks.md's tables, the
/// diagnostic codes) to the descriptors, and name what a new SDK still lacks.
struct SDKDescriptorTests {
    static let root = RepositoryFolders.root

    @Test func everySDKHasOneDescriptorKeyedToIt() {
        #expect(SDKDescriptor.all.map(\.sdk) == PushSDK.allCases)
        for sdk in PushSDK.allCases {
            #expect(sdk.descriptor.sdk == sdk, "\(sdk)'s descriptor is \(sdk.descriptor.sdk)'s")
            #expect(sdk.descriptor.modules.first == sdk.descriptor.module)
            #expect(PushSDK(moduleName: sdk.descriptor.module) == sdk)
        }
        let modules = SDKDescriptor.all.flatMap(\.modules)
        #expect(Set(modules).count == modules.count, "a module belongs to two SDKs: \(modules)")
        #expect(Set(SDKDescriptor.all.map(\.name)).count == SDKDescriptor.all.count)
    }

    @Test func packageSwiftListsEveryStandInModule() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let listed = Self.stringList(named: "sdkModules", in: manifest)
        #expect(!listed.isEmpty, "Package.swift has no `let sdkModules = [...]`")
        for descriptor in SDKDescriptor.all {
            for module in descriptor.modules {
                #expect(listed.contains(module), "Package.swift's sdkModules lacks \(module), \(descriptor.name)'s stand-in")
                #expect(manifest.contains(".target(name: \"\(module)\""), "Package.swift declares no target \(module)")
                let folder = Self.root.appendingPathComponent("Sources/\(module)").path
                #expect(FileManager.default.fileExists(atPath: folder), "\(descriptor.name)'s module \(module) has no folder Sources/\(module)")
            }
        }
        let described = Set(SDKDescriptor.all.flatMap(\.modules))
        for module in listed where !described.contains(module) {
            Issue.record("Package.swift's sdkModules lists \(module), which no SDKDescriptor names in its `modules`")
        }
    }

    @Test func theDocsKeysTableHasOneRowPerDescriptor() throws {
        let rows = try Self.tableRows(under: "| SDK | keys that identify its payloads (top level, or inside `aps`) | in this build |")
        for descriptor in SDKDescriptor.all {
            let expected = "| \(descriptor.name) | \(descriptor.documentedKeys) | yes |"
            #expect(rows.contains(expected), "docs/sdks.md's keys table lacks this row (or has it otherwise): \(expected)")
        }
        let names = Set(SDKDescriptor.all.map(\.name))
        for row in rows where !names.contains(Self.firstCell(of: row)) {
            Issue.record("docs/sdks.md's keys table has a row no SDKDescriptor describes: \(row)")
        }
    }

    @Test func theDocsHelperTableNamesEachSDKsModule() throws {
        let rows = try Self.tableRows(under: "| SDK | module, entry point |", prefixOnly: true)
        for descriptor in SDKDescriptor.all {
            let row = rows.first { Self.firstCell(of: $0) == descriptor.name }
            #expect(row?.hasPrefix("| \(descriptor.name) | `\(descriptor.module)`") == true,
                    "docs/sdks.md's helper table has no row `| \(descriptor.name) | `\(descriptor.module)`...`")
        }
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/sdks.md"), encoding: .utf8)
        let values = SDKSelection.argumentValues.joined(separator: "|")
        #expect(text.contains("--sdk \(values)"), "docs/sdks.md does not list --sdk's values as \(values)")
    }

    @Test func everySDKDiagnosticCodeBelongsToOneDescriptor() {
        let detection: Set<DiagnosticCode> = [.sdkDetectAmbiguous, .sdkExtensionMismatch]
        for code in DiagnosticCode.allCases where code.rawValue.hasPrefix("sdk.") || code.rawValue.hasPrefix("firebase.") {
            guard !detection.contains(code) else { continue }
            let owners = SDKDescriptor.all.filter { code.rawValue.hasPrefix($0.codePrefix) }.map(\.name)
            #expect(owners.count == 1, "\(code.rawValue) belongs to \(owners.isEmpty ? "no SDK" : owners.joined(separator: " and ")): start it with its SDK's codePrefix")
        }
        for descriptor in SDKDescriptor.all {
            #expect(descriptor.codes.allSatisfy { $0.rawValue.hasPrefix(descriptor.codePrefix) })
        }
        #expect(SDKDescriptor.braze.codes.contains(.sdkBrazeNotBraze))
        #expect(SDKDescriptor.firebase.codes == [.firebaseDeliveryMetrics, .firebaseConfigure])
    }

    @Test func eachSDKsRulesLiveWhereItsDescriptorSays() {
        for descriptor in SDKDescriptor.all {
            #expect(!descriptor.rules.isEmpty)
            for path in descriptor.rules {
                #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
                        "\(descriptor.name)'s rules are said to live in \(path), which does not exist")
            }
        }
    }

    @Test func detectionReadsTheDescriptorsKeys() {
        for descriptor in SDKDescriptor.all {
            let payload: [String: JSONValue] = ["aps": .object([:]), descriptor.marker: .object([:])]
            #expect(SDKDetection.matches(in: payload).map(\.sdk) == [descriptor.sdk], "\(descriptor.marker)")
            for prefix in descriptor.prefixes {
                #expect(SDKDetection.matches(in: ["\(prefix)x": .string("1")]).map(\.sdk) == [descriptor.sdk], "\(prefix)")
            }
            for key in descriptor.apsKeys {
                #expect(SDKDetection.matches(in: ["aps": .object([key: .string("+1")])]).map(\.keys) == [["aps.\(key)"]], "aps.\(key)")
                // Beside `aps` the key is no SDK's: the helper never reads it there.
                #expect(SDKDetection.matches(in: ["aps": .object([:]), key: .string("+1")]).isEmpty, "\(key) at the top level")
            }
        }
    }

    /// pushwoosh-ios-sdk's PWNotificationServiceProcessor.m reads the badge from `aps.pw_badge`: detection and the
    /// stand-in both read it there, from the descriptor.
    @Test func pushwooshsBadgeIsAKeyInsideAps() {
        #expect(SDKDescriptor.pushwoosh.apsKeys == [SDKDescriptor.pushwooshBadgeKey])
        #expect(!SDKDescriptor.pushwoosh.keys.contains(SDKDescriptor.pushwooshBadgeKey))
        let badgeOnly: [String: JSONValue] = ["aps": .object(["alert": .string("Hi"), "pw_badge": .string("+1")])]
        #expect(SDKDetection.choose(for: badgeOnly).choice.sdk == .pushwoosh)
    }

    /// The quoted strings of `let NAME = [...]` in a Swift file.
    static func stringList(named name: String, in text: String) -> [String] {
        guard let start = text.range(of: "let \(name) = ["),
              let end = text[start.upperBound...].firstIndex(of: "]") else { return [] }
        return text[start.upperBound..<end].split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The rows of docs/sdks.md's table whose header line is (or, with `prefixOnly`, begins with) `header`.
    static func tableRows(under header: String, prefixOnly: Bool = false) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/sdks.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let top = lines.firstIndex(where: { prefixOnly ? $0.hasPrefix(header) : $0 == header }) else {
            Issue.record("docs/sdks.md has no table headed \(header)")
            return []
        }
        // The header, the |---| line, then rows up to the first line that is not one.
        return Array(lines[(top + 1)...].dropFirst().prefix { $0.hasPrefix("|") })
    }

    static func firstCell(of row: String) -> String {
        row.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }
}
