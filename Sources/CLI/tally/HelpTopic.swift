import ArgumentParser

/// `tally help NAME…`: swift-argument-parser prints the root help with exit 0 for a name that is
/// no command, which hides a typo in a script. The names are checked against the command tree first.
enum HelpTopic {
    /// The first name after `help` that is not a subcommand of the one before it; nil when all are.
    static func unknownName(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = root
        for name in arguments.dropFirst() where !name.hasPrefix("-") {
            guard
                let next = command.configuration.subcommands.first(where: {
                    $0._commandName == name || $0.configuration.aliases.contains(name)
                })
            else { return name }
            command = next
        }
        return nil
    }
}
