import ArgumentParser
import Foundation
import NSECommandLine
import NSEConcurrency

/// `nse serve`: checks the options, then runs `nse-serve`, found beside this binary, in this process's place with
/// the same arguments. The server is a program of its own so that nse's other commands do not load SwiftNIO,
/// swift-nio-ssl and swift-crypto (docs/performance.md); in place (exec, not a child), so a signal sent to
/// `nse serve` reaches the server and nothing stands between them.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = ServeOptions.configuration(commandName: "serve")

    @OptionGroup
    var options: ServeOptions

    func run() async throws {
        // /proc/self/exe is the binary itself, whatever symbolic link or PATH entry started it.
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let server = URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent("nse-serve").path
        guard FileManager.default.fileExists(atPath: server) else {
            FileHandle.standardError.write(Data("""
                Error: nse serve runs the server program nse-serve, which must be beside nse: \(server) does not exist. \
                `make build` builds both programs and `make install` installs both (`swift build --product nse-serve` \
                builds it alone).

                """.utf8))
            throw ExitCode(2)
        }
        // The arguments after `serve`, unchanged: nse-serve parses them as this command did.
        let arguments = Array(CommandLine.arguments.dropFirst().drop { $0 != Self.configuration.commandName }.dropFirst())
        do {
            try ProgramReplacement.exec(server, arguments)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
    }
}
