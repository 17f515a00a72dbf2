import ArgumentParser
import NIOCore
import NIOPosix
import TallyOperations
import TallyPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tally`: the analytics event pipeline's command-line tool.
@main
struct TallyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "Analytics events for Swift feature modules: tracking plans, ingest and reports.",
        discussion: """
            Exit codes, the same in every command (sysexits): 0 success; 1 a check found problems (schema lint, \
            verify or diff findings, status findings, doctor); 64 usage error (bad arguments, a missing input); 65 \
            the data is wrong \
            (too many rejects, nothing accepted, a registry with problems, an edited migration); 66 no store \
            or keys file to read; 69 the database could not be reached or refused the connection; 73 a directory cannot be \
            written; 74 an input or output failed; 75 interrupted (run the command again to finish).
            """,
        version: TallyVersion.current,
        subcommands: [
            IngestCommand.self, SummaryCommand.self, StatusCommand.self, ReplayCommand.self, CompactCommand.self,
            MigrateCommand.self, DoctorCommand.self,
            SchemaCommand.self,
            GenerateCommand.self, ServeCommand.self, KeysCommand.self, ReportCommand.self, DashboardCommand.self,
        ]
    )

    /// swift-argument-parser's `main`, with tally's own failures printed as one `tally:` message
    /// and exited with their sysexits code, and a database error that no command caught still
    /// mapped the way every command maps it.
    static func main() async {
        ProcessMemory.limitMallocArenas()
        if let name = HelpTopic.unknownName(in: Array(CommandLine.arguments.dropFirst()), root: Self.self) {
            Terminal.error("unknown command '\(name)': `tally --help` lists the commands")
            exit(withError: ExitCode.usage)
        }
        do {
            var command = try parseAsRoot(nil)
            if command is ServeCommand {
                // The collector's request handlers then run on the event loops that read the
                // requests, not on a second pool that every request hops to and back.
                NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            Terminal.error(failure.message)
            exit(withError: ExitCode(failure.exitCode))
        } catch let error as PostgresError {
            let failure = CommandFailure(database: error, doing: "database error")
            Terminal.error(failure.message)
            exit(withError: ExitCode(failure.exitCode))
        } catch {
            exit(withError: error)
        }
    }
}

/// The release of this build.
enum TallyVersion {
    static let current = "0.1.0"
}
