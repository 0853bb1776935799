import Foundation
import Testing

/// Runs the built `nse` from the package root, as ProcessCommandTests does, for the other subcommands' tests.
func runNSE(_ arguments: [String], stdin: String? = nil) throws -> ProcessCommandTests.Run {
    let process = Process()
    process.executableURL = ProcessCommandTests.executable
    process.arguments = arguments
    process.currentDirectoryURL = ProcessCommandTests.root
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessCommandTests.Run(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

/// Writes `text` to a temporary file and returns its path; the folder goes when the test ends.
final class ScratchFile: Sendable {
    let folder: URL
    let path: String

    init(_ name: String, _ text: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        path = file.path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}
