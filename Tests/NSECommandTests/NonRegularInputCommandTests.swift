import Foundation
import Testing

/// Names that point at no regular file: a FIFO with no writer once kept `process`, `lint`, `resolve` and `route`
/// waiting in open(2) until killed; a device was read as if it were a push; a socket gave "No such device or
/// address". Each now ends at once with `input.unreadable` naming what the path is, exit status 2.
struct NonRegularInputCommandTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case fifo, socket, characterDevice

        var testDescription: String { rawValue }

        /// The words the diagnostic uses for it.
        var words: String {
            switch self {
            case .fifo: "FIFO (named pipe)"
            case .socket: "a socket"
            case .characterDevice: "a character device"
            }
        }
    }

    /// A scratch folder holding `push.json` of the given kind; removed with the value.
    final class Scratch: Sendable {
        let folder: URL
        let path: String
        private let socketDescriptor: Int32

        init(_ kind: Kind) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-nonregular-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            switch kind {
            case .fifo:
                path = folder.appendingPathComponent("push.json").path
                #expect(mkfifo(path, 0o600) == 0)
                socketDescriptor = -1
            case .socket:
                path = folder.appendingPathComponent("push.json").path
                socketDescriptor = try Self.listeningSocket(at: path)
            case .characterDevice:
                // /dev/zero never ends: read as a push it once cost a 1 MiB read and a "too large" verdict.
                path = folder.appendingPathComponent("push.json").path
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
                socketDescriptor = -1
            }
        }

        deinit {
            if socketDescriptor >= 0 { close(socketDescriptor) }
            try? FileManager.default.removeItem(at: folder)
        }

        private static func listeningSocket(at path: String) throws -> Int32 {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8) + [0]
            guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(descriptor, 1) == 0 else {
                close(descriptor)
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            return descriptor
        }
    }

    static let commands = ["process", "lint", "resolve", "route"]

    @Test(.timeLimit(.minutes(1)), arguments: commands, Kind.allCases)
    func aPushPathThatIsNoFileEndsAtOnceWithItsKind(command: String, kind: Kind) async throws {
        let scratch = try Scratch(kind)
        var arguments = [command, scratch.path, "--format", "json"]
        if command == "route" { arguments += ["--app-state", "background"] }

        let run = try await runNSE(arguments)

        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("input.unreadable"), "\(run.stdout)")
        #expect(run.stdout.contains(kind.words), "\(run.stdout)")
    }

    /// A batch reports a FIFO it is given by name as it reports one found in a folder: a result, not a usage error.
    @Test(.timeLimit(.minutes(1)), arguments: Kind.allCases)
    func aBatchReportsANamedPathThatIsNoFileAsAnUnreadablePush(kind: Kind) async throws {
        let scratch = try Scratch(kind)
        let good = try ScratchFile("good.json", #"{"aps": {"alert": {"title": "Fine"}}}"#)

        let run = try await runNSE(["batch", scratch.path, good.path, "--format", "json"])

        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "one result per push: \(run.stdout)")
        #expect(lines.contains { $0.contains("input.unreadable") && $0.contains(kind.words) }, "\(run.stdout)")
    }

    @Test(.timeLimit(.minutes(1)))
    func anInfoPlistThatIsAFIFOIsAUsageError() async throws {
        let scratch = try Scratch(.fifo)
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "--info-plist", scratch.path, "--format", "json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("FIFO (named pipe)"), "\(run.stderr)")
    }

    @Test(.timeLimit(.minutes(1)))
    func anExtensionSourceThatIsAFIFOIsRefusedUnread() async throws {
        let scratch = try Scratch(.fifo)
        let source = scratch.folder.appendingPathComponent("NotificationService.swift").path
        #expect(rename(scratch.path, source) == 0)
        let run = try await runNSE(["extension", scratch.folder.path, "--payload", "samples/payloads/jpeg-ok.json", "--format", "json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("FIFO (named pipe)"), "\(run.stderr)")
    }
}
