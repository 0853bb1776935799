import ArgumentParser
import Foundation
import NSEKit

@main
struct NSECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nse",
        abstract: "Emulates an iOS Notification Service Extension on a push payload: would the image show?",
        version: NSEVersion.current,
        subcommands: [ProcessCommand.self, BatchCommand.self, ExtensionCommand.self, LintCommand.self, ResolveCommand.self, RouteCommand.self]
    )

    /// ArgumentParser's own entry point, except that usage errors exit 2 (as documented) rather than 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
