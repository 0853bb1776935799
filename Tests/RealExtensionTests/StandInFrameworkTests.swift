import Foundation
import CImageFixtures
import NSEMedia
import Testing
import UniformTypeIdentifiers
import os

/// The framework stand-ins on their own: what apps' calls return.
struct StandInFrameworkTests {
    private func fixture(_ name: String, _ write: (String) -> Int32) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nse-standin-\(UUID().uuidString)-\(name)")
        defer { try? FileManager.default.removeItem(at: url) }
        try #require(write(url.path) == 0)
        return try Data(contentsOf: url)
    }

    @Test(arguments: ["png", "jpg", "gif"])
    func uiImageDecodesWithTheRealCodecsAndEncodesBack(kind: String) throws {
        let data = try fixture("a.\(kind)") { path in
            switch kind {
            case "png": cimagefixtures_write_png(path, 33, 21, 1, 5)
            case "jpg": cimagefixtures_write_jpeg(path, 33, 21, 90, 1, 5)
            default: cimagefixtures_write_gif(path, 33, 21, 2, 5)
            }
        }
        let image = try #require(UIKitCalls.decode(data))
        #expect(image.size == CGSize(width: 33, height: 21))
        let png = try #require(image.png)
        #expect(try RGBABitmap.decode(png, maxPixels: 1_000_000).width == 33)
        let jpeg = try #require(image.jpeg)
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(try RGBABitmap.decode(jpeg, maxPixels: 1_000_000).height == 21)
    }

    @Test func pngRoundTripKeepsEveryPixel() throws {
        let data = try fixture("b.png") { cimagefixtures_write_png($0, 17, 9, 0, 2) }
        let original = try RGBABitmap.decode(data, maxPixels: 1_000)
        let again = try RGBABitmap.decode(try original.pngData(), maxPixels: 1_000)
        for y in 0..<9 {
            for x in 0..<17 {
                #expect(again.pixel(x: x, y: y)! == original.pixel(x: x, y: y)!)
            }
        }
    }

    @Test(arguments: [Data(), Data("not an image".utf8), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0])])
    func dataThatIsNoImageGivesNil(data: Data) {
        #expect(UIKitCalls.decode(data) == nil)
    }

    @Test func aTruncatedPNGGivesNilInBoundedTime() throws {
        let data = try fixture("c.png") { cimagefixtures_write_png($0, 200, 200, 0, 9) }
        #expect(UIKitCalls.decode(data.prefix(data.count / 2)) == nil)
    }

    @Test func aRendererScalesByTheScreenUnlessToldOtherwise() {
        let onScreen = UIKitCalls.render(CGSize(width: 10, height: 5))
        #expect(onScreen.size == CGSize(width: 10, height: 5))
        #expect(onScreen.scale == 3)
        #expect(onScreen.png.flatMap { try? RGBABitmap.decode($0, maxPixels: 1_000).width } == 30)
    }

    @Test func anImageContextAtScaleZeroUsesTheScreensScale() throws {
        let data = try fixture("d.png") { cimagefixtures_write_png($0, 64, 32, 0, 8) }
        let resized = try #require(UIKitCalls.resizeWithImageContext(data, to: CGSize(width: 20, height: 10)))
        #expect(resized.size == CGSize(width: 20, height: 10))
        #expect(resized.scale == 3)
        let pixels = try RGBABitmap.decode(try #require(resized.png), maxPixels: 10_000)
        #expect(pixels.width == 60 && pixels.height == 30)
        #expect(pixels.pixel(x: 59, y: 29)?.alpha == 255, "the drawing covers the whole context")
    }

    @Test func utTypesMatchApplesIdentifiers() {
        #expect(UTType.png.identifier == "public.png")
        #expect(UTType.jpeg.identifier == "public.jpeg")
        #expect(UTType.gif.identifier == "com.compuserve.gif")
        #expect(UTType.mpeg4Movie.identifier == "public.mpeg-4")
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType(mimeType: "image/png") == .png)
        #expect(UTType.png.preferredFilenameExtension == "png")
        #expect(UTType.jpeg.preferredMIMEType == "image/jpeg")
        #expect(UTType.png.conforms(to: .image) && UTType.png.conforms(to: .data))
        #expect(!UTType.png.conforms(to: .audio))
        #expect(UTType(filenameExtension: "png", conformingTo: .audio) == nil)
        #expect(UTType(filenameExtension: "nope") == nil)
    }

    @Test func printfFormatsRenderLikeTheUnifiedLog() {
        #expect(PrintfFormatProbe.render("id %{public}@ n=%d pi=%.2f %{private}s 100%%", ["x7", 42, 3.14159, "secret"]) == "id x7 n=42 pi=3.14 secret 100%")
        #expect(PrintfFormatProbe.render("%d %d", [1]) == "1 <missing argument>")
        #expect(PrintfFormatProbe.render("%*d", [5]) == "5")
        #expect(PrintfFormatProbe.render("%lld %x %s|", [Int64(-3), 255, "ab"]) == "-3 ff ab|")
    }

    @Test func loggerInterpolationsFormatValues() {
        let id = "abc"
        let count = 7
        let ratio = 0.5
        let message: OSLogMessage = "\(id, privacy: .public) \(count, format: .hex(includePrefix: true, minDigits: 2)) \(ratio, format: .fixed(precision: 1)) \(true) [\(id, align: .left(columns: 5))]"
        #expect(OSLogMessageProbe.text(message) == "abc 0x07 0.5 true [abc  ]")
    }
}
