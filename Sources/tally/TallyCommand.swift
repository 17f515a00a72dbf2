import ArgumentParser

/// `tally`: the analytics event pipeline's command-line tool.
@main
struct TallyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "Analytics events for Swift feature modules: tracking plans, ingest and reports.",
        discussion: """
            Exit codes: 0 success; 1 the checked data has problems (lint or diff findings); \
            64 usage error (bad arguments); 74 an input or output failed.
            """,
        version: TallyVersion.current,
        subcommands: [
            IngestCommand.self, SummaryCommand.self, MigrateCommand.self, DoctorCommand.self, SchemaCommand.self,
            GenerateCommand.self,
        ]
    )

    static func main() async {
        ProcessMemory.limitMallocArenas()
        await main(nil)
    }
}

/// The release of this build.
enum TallyVersion {
    static let current = "0.1.0"
}
