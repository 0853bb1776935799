import Foundation
import Testing
@testable import NSEKit

/// How Firebase's helper names the downloaded file, and what type iOS then gives it.
struct AttachmentNamingTests {
    private func head(_ url: String, _ headers: [String: String] = [:]) -> ResponseHead {
        ResponseHead(status: 200, headers: headers, url: URL(string: url)!)
    }

    @Test(arguments: [
        // URL extension wins.
        ("https://cdn.example.com/a/sale.jpg", [:], "jpg"),
        ("https://cdn.example.com/a/sale.PNG?w=100", ["content-type": "image/jpeg"], "PNG"),
        // Extensionless: suggestedFilename takes an extension from the MIME type.
        ("https://cdn.example.com/a/hero", ["content-type": "image/jpeg"], "jpeg"),
        ("https://cdn.example.com/a/hero", ["content-type": "image/png; charset=binary"], "png"),
        // Extensionless and generic: no extension at all, UNError 101 on the device.
        ("https://cdn.example.com/a/banner", ["content-type": "application/octet-stream"], ""),
        ("https://cdn.example.com/a/banner", [:], ""),
        // Content-Disposition names the file.
        ("https://cdn.example.com/dl?id=3", ["content-disposition": #"attachment; filename="promo.gif""#], "gif"),
        ("https://cdn.example.com/dl?id=3", ["content-disposition": "attachment; filename*=UTF-8''caf%C3%A9.png"], "png"),
        // A misleading path extension is kept: iOS then refuses ".php".
        ("https://cdn.example.com/img.php", ["content-type": "image/jpeg"], "php"),
        // Unknown image subtypes become ".subtype" by Firebase's rule.
        ("https://cdn.example.com/x", ["content-type": "image/x-icon"], "x-icon"),
    ])
    func firebaseFileExtension(url: String, headers: [String: String], expected: String) {
        #expect(FirebaseImageHelper.fileExtension(for: head(url, headers), profile: DeviceProfile()) == expected)
    }

    @Test func withoutTheMIMEExtensionAssumptionFirebaseStillUsesTheImageSubtype() {
        var profile = DeviceProfile()
        profile.suggestedFilenameAddsMIMEExtension = false
        let response = head("https://cdn.example.com/hero", ["content-type": "image/jpeg"])
        #expect(response.suggestedFilename(profile: profile) == "hero")
        #expect(FirebaseImageHelper.fileExtension(for: response, profile: profile) == "jpeg")
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
            FileManager.default.createFile(atPath: file.path, contents: Data(count: bytes))
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
        #expect(code("big.png", bytes: 10_000_001) == 102)
        #expect(code("song.mp3", bytes: 5_000_001) == 102)
        do {
            _ = try AttachmentCreation.create(identifier: "", file: folder.appendingPathComponent("missing.jpg"), profile: profile)
            Issue.record("a missing file made an attachment")
        } catch {
            #expect(error.unErrorCode == 100)
        }
    }
}

struct MediaFormatTests {
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0], MediaFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        (Array("GIF89a".utf8), .gif),
        (Array("RIFF\0\0\0\0WEBPVP8 ".utf8), .webp),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8), .heic),
        ([0, 0, 0, 0x18] + Array("ftypisom".utf8), .mp4),
        (Array("BM".utf8) + [UInt8](repeating: 0, count: 20), .bmp),
        (Array("  <!DOCTYPE html><html>".utf8), .html),
        (Array("<?xml version=\"1.0\"?><svg xmlns=".utf8), .svg),
        (Array("ID3\u{3}".utf8), .mp3),
        ([0x00, 0x01, 0x02], .unknown),
        ([], .unknown),
    ])
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
        var hasher = SHA256()
        hasher.update(Array(message.utf8))
        #expect(hasher.finalizeHex() == digest)
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var whole = SHA256()
        whole.update(bytes)
        var pieces = SHA256()
        for chunk in stride(from: 0, to: bytes.count, by: 37) {
            pieces.update(Array(bytes[chunk..<min(chunk + 37, bytes.count)]))
        }
        #expect(whole.finalizeHex() == pieces.finalizeHex())
    }

    @Test func millionAs() {
        var hasher = SHA256()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(block) }
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
