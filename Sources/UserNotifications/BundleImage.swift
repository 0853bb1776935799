import Foundation
import NSEMedia
import NSEPush

/// The app's own images, by name (`UIImage(named:)`, `INImage(named:)`). On a device they come from the app's
/// asset catalog or bundle; nse has neither (Xcode compiles the catalog, and the extension's files are all nse
/// builds), so a file of that name in the run's bundle is used when there is one, and a placeholder otherwise:
/// an extension that unwraps its own asset (`UIImage(named: "avatar")!`) must not crash here where it works on
/// the phone.
package enum BundleImage {
    /// The placeholder's side in pixels: an avatar's size at 3x.
    package static let placeholderSide = 120

    /// The bytes of `name` in the folder standing for the app's bundle (the run's `bundleDirectory`: the
    /// extension's own folder under `nse extension`), else in the process's bundle: `name` itself when it has an
    /// extension, else `name.png`, its @2x and @3x variants, `name.jpg`, `name.jpeg`, `name.gif`, or an asset
    /// catalog's `name.imageset`; nil when there is none.
    package static func data(named name: String, in bundle: Bundle = .main) -> Data? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        if let folder = StandInRun.environment?.bundleDirectory, let data = data(named: name, under: folder) { return data }
        let given = (name as NSString).pathExtension
        let candidates: [(String, String)] = given.isEmpty
            ? ["", "@3x", "@2x"].map { (name + $0, "png") } + [(name, "jpg"), (name, "jpeg"), (name, "gif")]
            : [((name as NSString).deletingPathExtension, given)]
        for (resource, type) in candidates {
            if let path = bundle.path(forResource: resource, ofType: type), let data = FileManager.default.contents(atPath: path) {
                return data
            }
        }
        return nil
    }

    /// The first file under `folder` (searched to a few levels, as an Xcode target folder nests its groups) named
    /// `name` with an image extension, or inside an asset catalog's `name.imageset`.
    private static func data(named name: String, under folder: URL) -> Data? {
        let given = (name as NSString).pathExtension
        let names: Set<String> = given.isEmpty
            ? Set(["", "@2x", "@3x"].flatMap { suffix in ["png", "jpg", "jpeg", "gif"].map { "\(name)\(suffix).\($0)" } })
            : [name]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return nil }
        var inImageSet: URL?
        for case let file as URL in walker {
            if walker.level > 6 { walker.skipDescendants(); continue }
            let parent = file.deletingLastPathComponent().lastPathComponent
            if names.contains(file.lastPathComponent), !parent.hasSuffix(".imageset") {
                return FileManager.default.contents(atPath: file.path)
            }
            if inImageSet == nil, parent == "\(name).imageset", ["png", "jpg", "jpeg", "gif"].contains(file.pathExtension.lowercased()) {
                inImageSet = file
            }
        }
        return inImageSet.flatMap { FileManager.default.contents(atPath: $0.path) }
    }

    /// A plain square in place of an image the run's bundle lacks, with a warning saying so.
    package static func placeholder(named name: String, by call: String) -> RGBABitmap? {
        StandInRun.record(.warning(.extensionBundleImage, "\(call) asked for the app's image \"\(name)\", which is not in the folder standing for the app's bundle (nse has no app bundle, only the files it is given): a \(placeholderSide)x\(placeholderSide) placeholder stands in, as the app's own image would on a device. If the app ships no image of that name, \(call) gives nil on the phone."))
        return RGBABitmap(width: placeholderSide, height: placeholderSide)
    }
}
