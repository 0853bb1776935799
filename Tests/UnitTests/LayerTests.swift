import Foundation
import NSETestSupport
import Testing

/// The library's import rules (docs/design.md, "Modules"): each layer imports only the layers below it, and the
/// push model imports nothing but Foundation. SwiftPM alone does not keep this true, since Swift lets a module
/// import any module its dependencies bring along.
struct LayerTests {
    /// Lowest first.
    static let layers = ["NSEConcurrency", "NSEPush", "NSEMedia", "NSEPipeline", "NSEReports", "NSEBatch"]
    /// The C targets: typed wrappers and system libraries, below every Swift layer.
    static let cModules: Set = ["CNSE", "CCurl", "CCrypto", "CPNG", "CJPEG", "CGIF", "CISAL", "CNSESystem"]
    static let sources = RepositoryFolders.root.appendingPathComponent("Sources")

    /// The modules the Swift files under `Sources/<module>` import, each with a file that imports it.
    static func imports(of module: String) throws -> [String: String] {
        let folder = sources.appendingPathComponent(module)
        var found: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [:] }
        for case let file as URL in walker where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }),
                      index + 1 < words.count else { continue }
                found[String(words[index + 1].split(separator: ".")[0]), default: file.lastPathComponent] = file.lastPathComponent
            }
        }
        return found
    }

    @Test(arguments: layers)
    func aLayerImportsOnlyTheLayersBelowIt(module: String) throws {
        let projectModules = Set(try FileManager.default.contentsOfDirectory(atPath: Self.sources.path))
        let below = Set(Self.layers.prefix { $0 != module })
        let imported = try Self.imports(of: module)
        #expect(!imported.isEmpty, "no Swift files found for \(module)")
        for (name, file) in imported.sorted(by: { $0.key < $1.key }) where projectModules.contains(name) {
            let allowed = below.contains(name) || Self.cModules.contains(name)
            #expect(allowed, "\(module)/\(file) imports \(name), which is not a layer below \(module)")
        }
    }

    /// `NSEKit` is the umbrella for apps' test targets. Inside the package a module imports the layers it uses:
    /// the build system rebuilds a module when a module it imports changes, not when one an umbrella re-exports
    /// does, and a stale build then mixes up an enum's cases between modules.
    @Test func noModuleOfThePackageImportsTheUmbrella() throws {
        for module in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).sorted() where module != "NSEKit" {
            let imported = try Self.imports(of: module)
            #expect(imported["NSEKit"] == nil, "\(module)/\(imported["NSEKit"] ?? "") imports NSEKit: import the layers it uses")
        }
    }

    @Test func thePushModelImportsNothingButFoundation() throws {
        let imported = try Self.imports(of: "NSEPush")
        #expect(Set(imported.keys) == ["Foundation"], "NSEPush imports \(imported)")
    }
}
