import Foundation
import Testing

/// `--out` on a file system that refuses the writes: `nse process` once exited 0 with nothing written. A result
/// that could not be saved is exit status 2 with the reason, in `process` as in `batch`.
///
/// The writes fail for real: the child runs under RLIMIT_FSIZE 0 (`ulimit -f 0`, with SIGXFSZ ignored as a
/// full disk raises no signal), so every write to a regular file fails (EFBIG) as it would with ENOSPC, while the
/// folders are still made and the output goes to a pipe, which the limit does not cover.
struct UnwritableResultCommandTests {
    /// Runs `nse` with no room for any file's bytes; stderr is merged into stdout (a file would be refused too).
    private func runWithoutRoom(_ arguments: [String]) async throws -> ProcessCommandTests.Run {
        let script = #"ulimit -f 0 && trap '' XFSZ && exec "$0" "$@" 2>&1"#
        return try await runNSE(["-c", script, ProcessCommandTests.executable.path] + arguments, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    @Test(.timeLimit(.minutes(1)), arguments: ["process", "batch"])
    func aResultThatCannotBeWrittenIsExitStatus2WithTheReason(command: String) async throws {
        let push = try ScratchFile("hello.json", #"{"aps": {"alert": {"title": "Hello"}}}"#)
        let out = push.folder.appendingPathComponent("out")

        let run = try await runWithoutRoom([command, push.path, "--out", out.path, "--format", command == "batch" ? "text" : "json"])

        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stdout.contains("Error: the result of \(push.path) could not be saved to \(out.appendingPathComponent("hello.json").path)"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("hello.json/content.json").path))
    }
}
