import ArgumentParser

/// `tally schema …`: tracking plans.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract:
            "Check, show, compare, import tracking plans; generate Swift events from them and verify code against them.",
        discussion: """
            A registry is a directory of tracking plans, one JSON file per feature (see docs/tracking-plans.md). \
            Commands that need one take --registry DIR, else $TALLY_REGISTRY.
            """,
        subcommands: [
            SchemaLintCommand.self, SchemaShowCommand.self, SchemaDiffCommand.self, SchemaImportCommand.self,
            SchemaGenerateCommand.self, SchemaVerifyCommand.self,
        ]
    )
}
