import ArgumentParser

/// `tally schema …`: tracking plans.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Check, show, compare and import tracking plans.",
        discussion: """
            A registry is a directory of tracking plans, one JSON file per feature (see docs/tracking-plans.md). \
            Commands that need one take --registry DIR, else $TALLY_REGISTRY.
            """,
        subcommands: [
            SchemaLintCommand.self, SchemaShowCommand.self, SchemaDiffCommand.self, SchemaImportCommand.self,
        ]
    )
}
