import Foundation
import NSEConcurrency
import Testing

/// Runs one test of this test binary again, alone, in a process of its own.
///
/// For the tests that judge the process's memory growth (`MemoryMeasurement.exclusive`): in the suite's process,
/// other tests allocate and free memory while the extension runs, and a test freeing 30 MB during the run hides
/// 30 MB of the extension's growth (seen as a missed `extension.memory-limit` on a busy machine). The harness
/// can hold back other harness runs, not other tests; a process of its own holds back everything.
enum OwnProcess {
    /// Set in the child's environment: the tests that must run alone are enabled only where it is set.
    static let variable = "NSE_TEST_OWN_PROCESS"

    static var isChild: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Runs the test `name` of `suite` (the body of a test enabled only `isChild`) in a new process of this binary
    /// and records an issue, with the child's output, unless exactly that one test ran and passed.
    static func run(suite: String, test name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nse-own-process-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // Swift Testing's own entry point: the library and a filter (a pattern over "Module.Suite/test()").
        let arguments = ["--testing-library", "swift-testing", "--filter", "\(suite)/\(name)\\("]
        let environment = ProcessInfo.processInfo.environment.merging([variable: "1"]) { _, own in own }
        let termination = try await BlockingExecutor.shared.run("test.ownProcess") {
            Result {
                let child = try ChildProcess(
                    binary, arguments, environment: environment,
                    standardInput: .null, standardOutput: .file(output.path), standardError: .standardOutput)
                return child.wait()
            }
        }.get()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let passedAlone = termination == .exited(0) && text.contains("Test run with 1 test ") && text.contains(" passed ")
        #expect(passedAlone, "\(suite)/\(name) in a process of its own ended \(termination):\n\(text)", sourceLocation: sourceLocation)
    }
}
