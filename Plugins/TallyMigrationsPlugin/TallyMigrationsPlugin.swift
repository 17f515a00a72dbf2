import Foundation
import PackagePlugin

/// Compiles the package's `sql/` migrations into the target that applies them (TallyPostgres), so
/// the binary carries the schema it expects: `tally migrate` needs no files beside it, and an
/// installed binary and its migrations cannot disagree.
@main
struct TallyMigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "sql")
        let files = Self.sqlFiles(under: directory)
        guard !files.isEmpty else {
            Diagnostics.error("TallyMigrationsPlugin: no *.sql migrations under \(directory.path)")
            return []
        }
        // SwiftPM runs this plugin only when it plans the build again, which a change under sql/ does
        // not cause (sql/ belongs to no target). The directory as an input reruns the tool when a file
        // is added, and the tool lists the directory itself, so a new migration is never left out;
        // the files as inputs rerun it when one is edited. A renamed or deleted migration fails the
        // build with "missing inputs" until the plan is redone (`touch Package.swift`).
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding the SQL migrations in \(target.name)",
                executable: try context.tool(named: "tally-embed-sql").url,
                arguments: [output.path, directory.path],
                inputFiles: [directory] + files,
                outputFiles: [output]
            )
        ]
    }

    /// Every `*.sql` file under `directory`, subdirectories included, sorted by path.
    static func sqlFiles(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".sql") }.sorted()
            .map { directory.appending(path: $0) }
    }
}
