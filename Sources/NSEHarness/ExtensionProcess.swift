import Foundation
import NSEConcurrency
import NSEMedia
import NSEPipeline
import NSEReports

/// One payload run by the program built from the app's extension, in a process of its own.
public struct ExtensionProcess: Sendable {
    public let program: URL
    public let request: ExtensionRunRequest
    /// Where the request file is written.
    public let scratch: URL
    public let index: Int

    public init(program: URL, request: ExtensionRunRequest, scratch: URL, index: Int) {
        self.program = program
        self.request = request
        self.scratch = scratch
        self.index = index
    }

    /// The child's result; when it crashed or had to be stopped, `fallback` (an `ExtensionCrash` pipeline)
    /// tells what the phone shows instead.
    public func run(fallback: Pipeline) async -> ProcessResult {
        let requestFile = scratch.appendingPathComponent("request-\(index).json")
        // The extension's own temporary folder, as on a phone (its container's tmp): `NSTemporaryDirectory()` in
        // the child. What the extension leaves there goes with it rather than piling up in /tmp, one file a push.
        let temporary = scratch.appendingPathComponent("tmp-\(index)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let reason: String
        do {
            try JSONResultRenderer().encode(request).write(to: requestFile)
            try FolderCreation.make(temporary)
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporary.path
            // The extension's own print() and NSLog lines go to standard error, never into the report.
            let child = try ChildProcess(
                program.path, [requestFile.path], environment: environment, standardOutput: .descriptor(2), standardError: .descriptor(2))
            reason = await finish(child, within: request.device.profile.timeBudget + .seconds(30))
        } catch {
            reason = "could not start (\(error))"
        }
        if reason.isEmpty, let data = FileManager.default.contents(atPath: request.resultFile),
           let result = try? JSONDecoder().decode(ProcessResult.self, from: data) {
            return result
        }
        var crash = fallback
        crash.extensionRunner = ExtensionCrash(reason: reason.isEmpty ? "ended without writing its result" : reason)
        return await crash.run(file: URL(fileURLWithPath: request.payloadFile), attachmentDirectory: nil)
    }

    /// Looks at the child every 10 ms, holding no thread meanwhile; stops it past `limit` (the harness inside ends every run at
    /// its budget, so only a wedged process gets there). Returns "" for a normal exit, else what happened.
    private func finish(_ child: ChildProcess, within limit: Duration) async -> String {
        let deadline = ContinuousClock.now + limit
        while child.isRunning {
            if ContinuousClock.now > deadline {
                child.terminate()
                child.wait()
                return "did not end within \(limit.secondsText) and was stopped"
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        switch child.wait() {
        case .signalled(let number): return "crashed (signal \(number))"
        case .exited(let status) where status != 0: return "exited with status \(status)"
        case .exited: return ""
        }
    }
}
