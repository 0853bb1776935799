import Foundation
import NSEConcurrency
import Testing

/// Runs the built `nse` (or another `executable`) from the package root, with stdout piped (so it is not a
/// terminal); `whileRunning` may signal the process.
///
/// The waiting happens on the executor: blocking one of Swift's two cooperative threads for the child's
/// lifetime would stall the other suites meanwhile, including those that time extensions against their budget.
func runNSE(
    _ arguments: [String], executable: URL = ProcessCommandTests.executable, standardInput: String? = nil,
    environment: [String: String] = [:], whileRunning: @escaping @Sendable (ChildProcess) throws -> Void = { _ in }
) async throws -> ProcessCommandTests.Run {
    try await BlockingExecutor.shared.run("test.runNSE") {
        Result { try runBlocking(arguments, executable: executable, standardInput: standardInput, environment: environment, whileRunning: whileRunning) }
    }.get()
}

private func runBlocking(
    _ arguments: [String], executable: URL, standardInput: String?, environment: [String: String], whileRunning: (ChildProcess) throws -> Void
) throws -> ProcessCommandTests.Run {
    // Given text arrives through a file, so a child that does not read it cannot block the test on a full pipe.
    var inputFile: URL?
    if let standardInput {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-stdin-\(UUID().uuidString)")
        try Data(standardInput.utf8).write(to: file)
        inputFile = file
    }
    // The child has opened it once it has started.
    defer { inputFile.map { try? FileManager.default.removeItem(at: $0) } }
    // stderr goes to a file, so neither stream can fill a pipe and block the child while stdout is read.
    let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("nse-stderr-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: errFile) }
    let child = try ChildProcess(
        executable.path, arguments,
        environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, given in given },
        currentDirectory: ProcessCommandTests.root.path,
        standardInput: inputFile.map { .file($0.path) } ?? .null, standardOutput: .pipe, standardError: .file(errFile.path))
    try whileRunning(child)
    let stdout = child.standardOutput?.readToEndRetryingInterruptions() ?? Data()
    let termination = child.wait()
    let stderr = try Data(contentsOf: errFile)
    return ProcessCommandTests.Run(
        status: termination.status, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
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
