import Foundation
import NSEConcurrency
import Testing

@Suite struct ChildProcessTests {
    private func shell(_ script: String, standardError: ChildProcess.Output = .inherit) throws -> ChildProcess {
        try ChildProcess("/bin/sh", ["-c", script], standardInput: .null, standardOutput: .pipe, standardError: standardError)
    }

    private func output(of child: ChildProcess) -> String {
        String(decoding: child.standardOutput?.readToEndRetryingInterruptions() ?? Data(), as: UTF8.self)
    }

    @Test func exitStatusAndSignalAreTold() throws {
        #expect(try shell("exit 3").wait() == .exited(3))
        #expect(try shell("kill -SEGV $$").wait() == .signalled(SIGSEGV))
    }

    @Test func argumentsEnvironmentAndDirectoryReachTheChild() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try ChildProcess(
            "sh", ["-c", #"printf '%s|%s|%s|%s' "$1" "$NSE_CHILD_TEST" "$(pwd -P)" "${HOME-unset}""#, "sh", "one arg with spaces"],
            environment: ["NSE_CHILD_TEST": "é=1", "PATH": "/usr/bin:/bin"], currentDirectory: folder.path, standardOutput: .pipe)
        let text = output(of: child)
        #expect(child.wait() == .exited(0))
        let resolved = folder.resolvingSymlinksInPath().path
        #expect(text == "one arg with spaces|é=1|\(resolved)|unset", "only the given environment, in the given folder")
    }

    @Test func standardErrorCanJoinStandardOutputInOrder() throws {
        let child = try shell("echo one; echo two >&2; echo three", standardError: .standardOutput)
        #expect(output(of: child) == "one\ntwo\nthree\n")
        #expect(child.wait() == .exited(0))
    }

    @Test func standardInputComesFromTheGivenFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-child-in-\(UUID().uuidString)")
        try Data("from the file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess("cat", [], standardInput: .file(file.path), standardOutput: .pipe)
        #expect(output(of: child) == "from the file")
        #expect(child.wait() == .exited(0))
    }

    /// The child inherits none of our descriptors above 2, however many are open (Foundation's Process listed
    /// them one by one, and crashed doing so: swift-corelibs-foundation#5472).
    @Test func theChildInheritsNoDescriptorAboveTwo() throws {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<300 {
            let descriptor = open("/dev/null", O_RDONLY)  // without O_CLOEXEC, on purpose
            try #require(descriptor >= 0)
            held.append(descriptor)
        }
        // `ls` opens the folder itself (one more descriptor of its own), so list through a shell glob instead.
        let child = try shell("cd /proc/self/fd && echo *")
        let descriptors = output(of: child).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(child.wait() == .exited(0))
        #expect(descriptors.allSatisfy { $0 <= 3 }, "\(descriptors)")
    }

    /// Many threads start and wait for children at once, while others look at them: each is reaped once and
    /// every status arrives where it belongs.
    @Test func childrenStartedAndWaitedForConcurrentlyEachReportTheirOwnStatus() async throws {
        let statuses = try await withThrowingTaskGroup(of: (Int32, ChildProcess.Termination).self) { group in
            for index in Int32(0)..<40 {
                group.addTask {
                    let child = try ChildProcess("/bin/sh", ["-c", "exit \(index)"], standardInput: .null)
                    // A second waiter and a looker on the same child, on the executor's threads.
                    async let other = BlockingExecutor.shared.run("test.child-wait") { child.wait() }
                    _ = child.isRunning
                    let mine = await BlockingExecutor.shared.run("test.child-wait") { child.wait() }
                    #expect(await other == mine)
                    #expect(!child.isRunning)
                    return (index, mine)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(statuses.count == 40)
        #expect(statuses.allSatisfy { $0.value == .exited($0.key) })
    }

    @Test func aRunningChildCanBeStoppedAndASignalAfterItsEndIsIgnored() throws {
        let child = try ChildProcess("sleep", ["600"], standardInput: .null)
        #expect(child.isRunning)
        child.terminate()
        #expect(child.wait() == .signalled(SIGTERM))
        #expect(!child.isRunning)
        child.signal(SIGKILL)  // reaped: must not reach whatever process now has that ID
        #expect(child.wait() == .signalled(SIGTERM))
        #expect(child.resourceUsage != nil)
    }

    /// An ignored signal survives exec: if this process ignores SIGPIPE, a child such as
    /// `sh -c 'producer | head -1'` would see its producer go on writing into a closed pipe instead of ending.
    @Test func theChildGetsSIGPIPEsDefaultBackEvenWhenThisProcessIgnoresIt() throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        // The mask of ignored signals, as hexadecimal: SIGPIPE (13) is its bit 12.
        let child = try shell("sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status")
        let ignored = UInt64(output(of: child).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
        #expect(child.wait() == .exited(0))
        #expect(ignored.map { $0 & (1 << (UInt64(SIGPIPE) - 1)) } == 0, "SigIgn: \(String(ignored ?? 0, radix: 16))")
    }

    /// A batch worker starts with SIGINT and SIGTERM blocked (so one relayed before it catches them waits for it);
    /// any other child starts with none blocked.
    @Test func theChildStartsWithTheSignalsAskedForBlockedAndNoOthers() throws {
        func blocked(_ signals: [Int32]) throws -> UInt64? {
            // sed itself, not through a shell: sh unblocks every signal as it starts.
            let child = try ChildProcess(
                "sed", ["-n", "s/^SigBlk:[[:space:]]*//p", "/proc/self/status"], standardInput: .null, standardOutput: .pipe,
                blockedSignals: signals)
            defer { child.wait() }
            return UInt64(output(of: child).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
        }
        #expect(try blocked(TerminationSignals.numbers) == (1 << (UInt64(SIGINT) - 1)) | (1 << (UInt64(SIGTERM) - 1)))
        #expect(try blocked([]) == 0)
    }

    @Test func aMissingProgramIsAnErrorNotACrash() {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program", []) }
        #expect(throws: ChildProcessError.self) { try ChildProcess("nse-no-such-program-on-path", []) }
    }
}
