import Foundation
import NSEConcurrency

/// Runs one test of this test binary again, alone, in a process of its own.
///
/// For the tests whose verdict rests on what the whole process does while an extension runs, which the other tests
/// of a parallel suite change:
/// - memory growth (`MemoryMeasurement.exclusive`): a test freeing 30 MB during the run hides 30 MB of the
///   extension's growth (seen as a missed `extension.memory-limit` on a busy machine). The harness can hold back
///   other harness runs, not other tests;
/// - an extension that starts its work in a `Task {}`: the task waits for the process's cooperative pool (a thread
///   per core), which the other tests' bodies can keep busy for seconds on a loaded machine, while the time budget
///   runs. On a device the extension's process has its pool to itself.
///
/// A process of its own holds back everything, as a device does.
public enum OwnProcess {
    /// Set in the child's environment: the tests that must run alone are enabled only where it is set.
    public static let variable = "NSE_TEST_OWN_PROCESS"

    public static var isChild: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// How the run alone went.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// Exactly that one test ran (all its cases, if it has arguments), and passed.
        public var passedAlone: Bool
        public var description: String
    }

    /// Runs the test `name` of `suite` (the body of a test enabled only `isChild`) in a new process of this binary.
    /// The caller expects `passedAlone`, with the outcome (the child's output) as the message.
    public static func run(suite: String, test name: String) async throws -> Outcome {
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
        return Outcome(passedAlone: passedAlone, description: "\(suite)/\(name) in a process of its own ended \(termination):\n\(text)")
    }
}
