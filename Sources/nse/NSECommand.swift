import ArgumentParser

@main
struct NSECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nse",
        abstract: "Emulates an iOS Notification Service Extension on a push payload: would the image show?",
        subcommands: [ProcessCommand.self]
    )
}
