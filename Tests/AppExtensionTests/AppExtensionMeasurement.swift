import Foundation
import CImageFixtures
import NSEHarness
import NSEMedia
import NSEMediaServer
import Testing
import UserNotifications

/// Run time and memory per payload for the app extensions, printed for the README (`NSE_MEASURE=1 swift test
/// --filter AppExtensionMeasurement`). Not a test of speed: it asserts only that every run showed its image.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["NSE_MEASURE"] != nil))
struct AppExtensionMeasurement {
    /// Photo-sized media: what push images usually are.
    static let jpeg = AppExtensionTests.encode("jpg") { cimagefixtures_write_jpeg($0, 2400, 1600, 85, 0, 11) }
    static let png = AppExtensionTests.encode("png") { cimagefixtures_write_png($0, 1200, 800, 0, 12) }
    static let gif = AppExtensionTests.encode("gif") { cimagefixtures_write_gif($0, 480, 270, 10, 13) }

    @Test func runTimeAndMemoryPerPayload() async throws {
        print("media: JPEG 2400x1600 \(Self.jpeg.count) B, PNG 1200x800 \(Self.png.count) B, GIF 480x270x10 \(Self.gif.count) B")
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/img/sale.jpg": return .ok(Self.jpeg, contentType: "image/jpeg")
            case "/campaign/42", "/img/promo.png": return .ok(Self.png, contentType: "image/png")
            case "/private/banner.gif": return .ok(Self.gif, contentType: "image/gif")
            default: return .notFound
            }
        }
        defer { server.stop() }
        let alert = #""aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}"#
        let cases: [(String, UNNotificationServiceExtension.Type, String)] = [
            ("downloadTask + rename", ClassicDownloadService.self, #"{\#(alert), "image_url": "https://cdn.example.com/img/sale.jpg"}"#),
            ("dataTask -> .gif", GIFDataTaskService.self, #"{\#(alert), "media": {"url": "https://cdn.example.com/private/banner.gif"}}"#),
            ("async download(from:)", AsyncDownloadService.self, #"{\#(alert), "attachment-url": "https://cdn.example.com/campaign/42"}"#),
            ("Data(contentsOf:)", ContentsOfService.self, #"{\#(alert), "image": "https://cdn.example.com/img/promo.png"}"#),
            ("delegate session", DelegateDownloadService.self, #"{\#(alert), "image_url": "https://cdn.example.com/img/promo.png"}"#),
        ]
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.memoryMeasurement = .exclusive
        let rounds = 20
        print("| extension | extension ms (median of \(rounds)) | whole run ms | request ms | accounted peak | process growth |")
        print("|---|---|---|---|---|---|")
        for (name, type, payload) in cases {
            var extensionTimes: [Double] = [], totals: [Double] = [], requests: [Double] = []
            var accounted: [Int] = [], growth: [Int] = []
            for _ in 0..<rounds {
                let delivered = try await harness.run(type, payload: payload)
                #expect(delivered.imageShown)
                extensionTimes.append(delivered.result.timings["extension"] ?? 0)
                totals.append(delivered.result.timings["total"] ?? 0)
                requests.append(delivered.activity.requests.first?.milliseconds ?? 0)
                accounted.append(delivered.activity.memory?.accountedPeakBytes ?? 0)
                growth.append(delivered.activity.memory?.processGrowthBytes ?? -1)
            }
            func median<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
            print(String(format: "| %@ | %.1f | %.1f | %.1f | %d B | %.1f MB (max %.1f) |", name, median(extensionTimes), median(totals), median(requests),
                         median(accounted), Double(median(growth)) / 1_048_576, Double(growth.max() ?? 0) / 1_048_576))
        }
        let sample = try await harness.run(ClassicDownloadService.self, payload: cases[0].2)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(sample.activity), as: UTF8.self))
    }
}
