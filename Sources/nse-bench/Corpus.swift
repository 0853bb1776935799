import CImageFixtures
import Foundation
import NSEConcurrency
import Synchronization

/// The benchmark's deterministic corpus: images made by the real encoders (never downloaded) and pushes that
/// point at them, in two variants: every push with its own image, and pushes sharing a few images.
struct Corpus {
    enum Format: String {
        case jpeg = "jpg", png, gif
    }

    /// What a push's image is, including the broken ones (about 5% of pushes fail, as in a real campaign folder).
    enum Image: Hashable {
        case valid(format: Format, width: UInt32, height: UInt32, frames: UInt32, seed: UInt32)
        /// The 8000 x 5000 JPEG (40 megapixels, under the 10 MB limit at quality 80).
        case large
        /// A PNG with bytes flipped in its image data: the CRC and zlib checks fail.
        case corruptPNG(seed: UInt32)
        /// An HTML error page saved under a .jpg name.
        case htmlPage
        /// A URL that answers 404.
        case missing(seed: UInt32)

        var fileName: String {
            switch self {
            case .valid(let format, let width, let height, let frames, let seed): "\(format.rawValue)-\(width)x\(height)-\(frames)f-\(seed).\(format.rawValue)"
            case .large: "large-8000x5000.jpg"
            case .corruptPNG(let seed): "corrupt-\(seed).png"
            case .htmlPage: "error-page.jpg"
            case .missing(let seed): "missing-\(seed).jpg"
            }
        }

        /// Decodable by the validators (so part of the decode floor): every image file that exists.
        var isDecoded: Bool {
            switch self {
            case .valid, .large, .corruptPNG: true
            case .htmlPage, .missing: false
            }
        }

        var exists: Bool {
            if case .missing = self { return false }
            return true
        }
    }

    struct Push {
        var path: String
        var image: Image
        /// Written with a trailing comma: invalid JSON.
        var malformed = false

        /// Would `nse batch` pass it (and show its image)?
        var passes: Bool {
            guard !malformed else { return false }
            switch image {
            case .valid, .large: return true
            default: return false
            }
        }
    }

    static let sizes: [(UInt32, UInt32)] = [(320, 240), (640, 480), (800, 600), (1024, 768), (1280, 960), (1600, 1200), (2048, 1536)]

    let payloads: Int
    let root: URL
    /// Images the shared variant draws on.
    var sharedPool = 40
    /// The sizes images cycle through (the CPU-bound workload uses larger ones).
    var sizes = Corpus.sizes
    /// Whether image 11 is the 8000 x 5000 JPEG (off where every image should have one of `sizes`).
    var includesLarge = true
    var images: URL { root.appendingPathComponent("img") }

    /// The pushes of one variant: `shared` draws every image from a pool of `sharedPool`.
    func pushes(shared: Bool) -> [Push] {
        (0..<payloads).map { index in
            let path = "campaign-\(index / 100)/push-\(String(index).leftPadded(4)).json"
            var push = Push(path: path, image: image(for: shared ? index % sharedPool : index))
            if index % 20 == 7 {
                // The 5%: missing images, corrupt PNGs, malformed JSON and an HTML page served as a JPEG.
                switch (index / 20) % 10 {
                case 0...3: push.image = .missing(seed: UInt32(shared ? index % 3 : index))
                case 4...6: push.image = .corruptPNG(seed: UInt32(shared ? index % 2 : index))
                case 7...8: push.malformed = true
                default: push.image = .htmlPage
                }
            }
            return push
        }
    }

    /// Image `number` of the pool: mostly JPEG, then PNG and GIF (some animated), sizes cycling through the list.
    private func image(for number: Int) -> Image {
        if number == 11, includesLarge { return .large }
        let (width, height) = sizes[(number * 3) % sizes.count]
        let roll = (number * 37) % 100
        let format: Format = roll < 60 ? .jpeg : roll < 80 ? .png : .gif
        let frames: UInt32 = format == .gif && width <= 800 && number % 2 == 0 ? 3 : 1
        return .valid(format: format, width: width, height: height, frames: frames, seed: UInt32(number))
    }

    /// Writes every image both variants use that is not there yet (the corpus is kept between runs).
    /// Makes the images the pushes of `variants` (unique, shared or both) draw on that are not there yet.
    func generateImages(for variants: [Bool] = [false, true]) throws {
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let needed = Array(Set(variants.flatMap { pushes(shared: $0) }.map(\.image).filter(\.exists)))
            .sorted { $0.fileName < $1.fileName }
            .filter { !FileManager.default.fileExists(atPath: images.appendingPathComponent($0.fileName).path) }
        guard !needed.isEmpty else { return }
        print("generating \(needed.count) images in \(images.path) ...")
        let failures = Failures()
        let next = Counter()
        let finished = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in Latch<Bool>() }
        for done in finished {
            BlockingExecutor.shared.execute("nse-bench.generate") { [self] in
                while let index = next.take(below: needed.count) {
                    do { try write(needed[index]) } catch { failures.add("\(needed[index].fileName): \(error)") }
                }
                done.open(true)
            }
        }
        for done in finished { _ = done.wait() }
        if let first = failures.first { throw BenchError(first) }
    }

    private func write(_ image: Image) throws {
        let file = images.appendingPathComponent(image.fileName)
        // Written aside and renamed, so an interrupted generation never leaves a short image behind.
        let temporary = images.appendingPathComponent(".\(image.fileName).tmp")
        let status: Int32
        switch image {
        case .valid(.jpeg, let width, let height, _, let seed):
            status = cimagefixtures_write_jpeg(temporary.path, width, height, 85, 0, seed)
        case .valid(.png, let width, let height, _, let seed):
            status = cimagefixtures_write_png(temporary.path, width, height, 0, seed)
        case .valid(.gif, let width, let height, let frames, let seed):
            status = cimagefixtures_write_gif(temporary.path, width, height, frames, seed)
        case .large:
            status = cimagefixtures_write_jpeg(temporary.path, 8000, 5000, 80, 0, 11)
        case .corruptPNG(let seed):
            status = cimagefixtures_write_png(temporary.path, 640, 480, 0, 1000 + seed)
            if status == 0 {
                var bytes = [UInt8](try Data(contentsOf: temporary))
                for offset in (bytes.count / 2)..<(bytes.count / 2 + 64) { bytes[offset] ^= 0x5A }
                try Data(bytes).write(to: temporary)
            }
        case .htmlPage:
            try Data("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>\n".utf8).write(to: temporary)
            status = 0
        case .missing:
            return
        }
        guard status == 0 else { throw BenchError("the encoder failed for \(image.fileName)") }
        guard rename(temporary.path, file.path) == 0 else { throw BenchError("cannot rename \(temporary.path)") }
    }

    /// Writes the pushes of a variant, pointing at `baseURL`; returns their folder.
    func writePayloads(shared: Bool, baseURL: String) throws -> URL {
        let folder = root.appendingPathComponent("payloads-\(shared ? "shared" : "unique")")
        try writePayloadFolder(folder, pushes(shared: shared).map { push in
            (push.path, """
                {"aps": {"alert": {"title": "Bench", "body": "\(push.path)"}, "mutable-content": 1}, \
                "fcm_options": {"image": "\(baseURL)/img/\(push.image.fileName)"}\(push.malformed ? "," : "")}
                """)
        })
        return folder
    }

    /// Bytes of the images behind `pushes`, counted once per push (what the pushes download between them).
    func imageBytes(_ pushes: [Push]) -> Int {
        pushes.reduce(0) { total, push in
            guard !push.malformed, push.image.exists else { return total }
            let size = (try? FileManager.default.attributesOfItem(atPath: images.appendingPathComponent(push.image.fileName).path))?[.size] as? Int
            return total + (size ?? 0)
        }
    }
}

/// Writes each payload (a path relative to `folder`, its JSON) over the file a previous run left, in place, and
/// removes only files no longer wanted. The payloads name the loopback server's port, so they change every run; why
/// not remove the folder and write it anew: on this machine's journal-less ext4 every file removed makes the files
/// created in the next minutes slower to place (the kernel skips recently freed inodes one by one), so the 1,700
/// payload files removed and rewritten before the measurements charged nse's runs for them.
func writePayloadFolder(_ folder: URL, _ payloads: [(path: String, json: String)]) throws {
    let wanted = Set(payloads.map(\.path))
    if let existing = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) {
        for case let file as URL in existing where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            let relative = String(file.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            if !wanted.contains(relative) { try? FileManager.default.removeItem(at: file) }
        }
    }
    for payload in payloads {
        let file = folder.appendingPathComponent(payload.path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Not atomic: an atomic write is a new file renamed over the old one, which frees the old one's inode.
        try Data(payload.json.utf8).write(to: file)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Errors from the generation threads.
final class Failures: Sendable {
    private let messages = Mutex<[String]>([])

    func add(_ message: String) { messages.withLock { $0.append(message) } }
    var first: String? { messages.withLock { $0.first } }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
