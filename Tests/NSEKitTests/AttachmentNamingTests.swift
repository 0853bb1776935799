import Foundation
@testable import NSEBatch
@testable import NSEMedia
@testable import NSEPush
@testable import NSEReports
import Testing

/// How Firebase's helper names the downloaded file, and what type iOS then gives it.
struct AttachmentNamingTests {
    private func head(_ url: String, _ headers: [String: String] = [:]) -> ResponseHead {
        ResponseHead(status: 200, headers: headers, url: URL(string: url)!)
    }

    struct NamingCase: Sendable, CustomTestStringConvertible {
        var url: String
        var headers: [String: String]
        var fileExtension: String
        var testDescription: String { "\(url) \(headers) -> .\(fileExtension)" }
    }

    static let namingCases: [NamingCase] = [
        // The URL's extension wins, whatever the MIME type.
        NamingCase(url: "https://cdn.example.com/a/sale.jpg", headers: [:], fileExtension: "jpg"),
        NamingCase(url: "https://cdn.example.com/a/sale.PNG?w=100", headers: ["content-type": "image/jpeg"], fileExtension: "PNG"),
        // Extensionless: suggestedFilename takes an extension from the MIME type.
        NamingCase(url: "https://cdn.example.com/a/hero", headers: ["content-type": "image/jpeg"], fileExtension: "jpeg"),
        NamingCase(url: "https://cdn.example.com/a/hero", headers: ["content-type": "image/png; charset=binary"], fileExtension: "png"),
        // Extensionless and generic: no extension at all, UNError 101 on the device.
        NamingCase(url: "https://cdn.example.com/a/banner", headers: ["content-type": "application/octet-stream"], fileExtension: ""),
        NamingCase(url: "https://cdn.example.com/a/banner", headers: [:], fileExtension: ""),
        // Content-Disposition names the file.
        NamingCase(url: "https://cdn.example.com/dl?id=3", headers: ["content-disposition": #"attachment; filename="promo.gif""#], fileExtension: "gif"),
        NamingCase(url: "https://cdn.example.com/dl?id=3", headers: ["content-disposition": "attachment; filename*=UTF-8''caf%C3%A9.png"], fileExtension: "png"),
        // A misleading path extension is kept: iOS then refuses ".php".
        NamingCase(url: "https://cdn.example.com/img.php", headers: ["content-type": "image/jpeg"], fileExtension: "php"),
        // Unknown image subtypes become ".subtype" by Firebase's rule.
        NamingCase(url: "https://cdn.example.com/x", headers: ["content-type": "image/x-icon"], fileExtension: "x-icon"),
    ]

    @Test(arguments: namingCases)
    func firebaseFileExtension(_ naming: NamingCase) {
        let response = head(naming.url, naming.headers)
        #expect(FirebaseImageRules.fileExtension(for: response, profile: DeviceProfile()) == naming.fileExtension)
    }
    @Test func withoutTheMIMEExtensionAssumptionFirebaseStillUsesTheImageSubtype() {
        var profile = DeviceProfile()
        profile.suggestedFilenameAddsMIMEExtension = false
        let response = head("https://cdn.example.com/hero", ["content-type": "image/jpeg"])
        #expect(response.suggestedFilename(profile: profile) == "hero")
        #expect(FirebaseImageRules.fileExtension(for: response, profile: profile) == "jpeg")
    }

    /// A prepended mark (U+0600) before "/" makes the two one Character, which is not "/": a server's
    /// Content-Disposition kept its separators, and the attachment's name could hold one ("attachment.b\u{600}/x",
    /// a file that could not be written). Found by the media fuzzer (Fuzz/regressions/media/crash-de2403a4...).
    @Test(arguments: [
        #"attachment; filename="x.png\#u{600}/..\#u{600}/..\#u{600}/evil.gif""#,
        "attachment; filename*=UTF-8''x.png%D8%80%2F..%D8%80%2F..%D8%80%2Fevil.gif",
        #"attachment; filename="x.png\#u{600}\..\#u{600}\evil.gif""#,
    ])
    func aDispositionNameNeverKeepsASeparator(disposition: String) {
        let response = head("https://cdn.example.com/dl?id=3", ["content-disposition": disposition])
        #expect(response.dispositionFilename == "evil.gif")
        #expect(FirebaseImageRules.fileExtension(for: response, profile: DeviceProfile()) == "gif")
    }

    /// Neither the name nor its extension ever holds "/", whatever marks surround it.
    @Test func anExtensionNeverHoldsASeparator() {
        let response = head("https://cdn.example.com/dl", ["content-disposition": "attachment; filename*=UTF-8''a.b%D8%80%2F%D8%80%2F", "content-type": "image/png"])
        let fileExtension = FirebaseImageRules.fileExtension(for: response, profile: DeviceProfile())
        #expect(!fileExtension.unicodeScalars.contains("/"), "\(fileExtension)")
        #expect(response.dispositionFilename.map { !$0.unicodeScalars.contains("/") } ?? true)
    }

    /// NSString finds the dot among UTF-16 units: a dot with a combining mark after it still starts the extension.
    @Test func theExtensionStartsAtTheLastDotEvenWithACombiningMark() {
        #expect(ResponseHead.pathExtension(of: "photo.\u{301}jpg") == "\u{301}jpg")
        #expect(ResponseHead.pathExtension(of: "photo.jpg") == "jpg")
        #expect(ResponseHead.pathExtension(of: ".hidden") == "")
        #expect(ResponseHead.pathExtension(of: "none") == "")
    }

    @Test func suggestedFilenameFallsBackToTheHost() {
        #expect(head("https://cdn.example.com/").suggestedFilename(profile: DeviceProfile()) == "cdn.example.com")
    }

    @Test(arguments: [
        ("jpg", "public.jpeg", AttachmentType.Category?.some(.image)),
        ("JPEG", "public.jpeg", .image),
        ("png", "public.png", .image),
        ("gif", "com.compuserve.gif", .image),
        ("mp3", "public.mp3", .audio),
        ("mp4", "public.mpeg-4", .movie),
        ("webp", "org.webmproject.webp", nil),
        ("heic", "public.heic", nil),
    ])
    func typeFromExtension(fileExtension: String, identifier: String, category: AttachmentType.Category?) {
        let type = AttachmentType(fileExtension: fileExtension)
        #expect(type?.identifier == identifier)
        #expect(type?.category == category)
    }

    @Test func unknownExtensionsHaveNoType() {
        #expect(AttachmentType(fileExtension: "") == nil)
        #expect(AttachmentType(fileExtension: "php") == nil)
    }

    @Test func aFileBetweenTheTwoReadingsOfMBIsAWarningUnlessTheReadingIsKnown() {
        var profile = DeviceProfile()
        #expect(profile.acceptedSizeLimit(for: .image) == 10_485_760)
        let warning = profile.sizeAssumption(bytes: 10_200_000, category: .image)
        #expect(warning?.severity == .warning)
        #expect(warning?.code == .mediaTooLarge)
        #expect(profile.sizeAssumption(bytes: 9_999_999, category: .image) == nil)
        #expect(profile.sizeAssumption(bytes: 10_485_761, category: .image) == nil, "over both readings: the error's, not this")
        profile.megabyteIsKnown = true
        #expect(profile.acceptedSizeLimit(for: .image) == 10_000_000)
        #expect(profile.sizeAssumption(bytes: 10_200_000, category: .image) == nil)
    }

    @Test func sizeLimitsFollowTheCategoryAndTheMegabyteAssumption() {
        var profile = DeviceProfile()
        #expect(profile.sizeLimit(for: .image) == 10_000_000)
        #expect(profile.sizeLimit(for: .audio) == 5_000_000)
        #expect(profile.sizeLimit(for: .movie) == 50_000_000)
        profile.megabyte = 1_048_576
        #expect(profile.sizeLimit(for: .image) == 10_485_760)
    }

    @Test func attachmentCreationThrowsTheUNErrorCodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-naming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = DeviceProfile()
        func code(_ name: String, bytes: Int, hint: String? = nil) -> Int? {
            let file = folder.appendingPathComponent(name)
            _ = FileManager.default.createFile(atPath: file.path, contents: Data(count: bytes))
            do {
                _ = try AttachmentCreation.create(identifier: "", file: file, typeHint: hint, profile: profile)
                return nil
            } catch {
                return error.unErrorCode
            }
        }
        #expect(code("ok.jpg", bytes: 10) == nil)
        #expect(code("noext", bytes: 10) == 101)
        #expect(code("photo.webp", bytes: 10) == 101)
        #expect(code("hinted", bytes: 10, hint: "public.png") == nil)
        // Between the two readings of "MB": accepted while the reading is unknown (a warning, elsewhere).
        #expect(code("big.png", bytes: 10_000_001) == nil)
        #expect(code("bigger.png", bytes: 10_485_761) == 102)
        #expect(code("song.mp3", bytes: 5_242_881) == 102)
        do {
            _ = try AttachmentCreation.create(identifier: "", file: folder.appendingPathComponent("missing.jpg"), profile: profile)
            Issue.record("a missing file made an attachment")
        } catch {
            #expect(error.unErrorCode == 100)
        }
    }
}

struct MediaFormatTests {
    static let magic: [([UInt8], MediaFormat)] = {
        let isoBox: [UInt8] = [0, 0, 0, 0x18]
        let riff: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0]
        return [
            ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
            (Array("GIF89a".utf8), .gif),
            (riff + Array("WEBPVP8 ".utf8), .webp),
            (isoBox + Array("ftypheic".utf8), .heic),
            (isoBox + Array("ftypisom".utf8), .mp4),
            (Array("BM".utf8) + [UInt8](repeating: 0, count: 20), .bmp),
            (Array("  <!DOCTYPE html><html>".utf8), .html),
            (Array("<?xml version=\"1.0\"?><svg xmlns=".utf8), .svg),
            (Array("ID3".utf8) + [3], .mp3),
            ([0x00, 0x01, 0x02], .unknown),
            ([], .unknown),
        ]
    }()

    @Test(arguments: magic)
    func sniffsMagicNumbers(bytes: [UInt8], format: MediaFormat) {
        #expect(MediaFormat.sniff(bytes) == format)
    }
}

struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(message: String, digest: String) {
        let hasher = SHA256()
        hasher.update(Array(message.utf8))
        #expect(hasher.finalizeHex() == digest)
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let whole = SHA256()
        whole.update(bytes)
        let pieces = SHA256()
        for chunk in stride(from: 0, to: bytes.count, by: 37) {
            pieces.update(Array(bytes[chunk..<min(chunk + 37, bytes.count)]))
        }
        #expect(whole.finalizeHex() == pieces.finalizeHex())
    }

    @Test func millionAs() {
        let hasher = SHA256()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(block) }
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
