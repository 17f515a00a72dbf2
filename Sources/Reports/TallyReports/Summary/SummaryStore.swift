/// The store `tally summary` reads, and what chose it.
///
/// The rules, most explicit first: `--store file|postgres`; else an explicit `--data-dir` (the file
/// store, even when `DATABASE_URL` is set); else an explicit `--database-url`; else `DATABASE_URL`
/// or libpq's `PGHOST` / `PGDATABASE` in the environment; else the file store
/// (`$TALLY_DATA_DIR`, else `./tally-data`). An environment variable left over from a local
/// PostgreSQL session silently changing what a report reads is the mistake this guards against:
/// ``note`` names the store that was not read, and the renderers print it.
package struct SummaryStore: Sendable, Hashable {
    /// The kinds of store.
    package enum Kind: String, Sendable, CaseIterable {
        /// The file store under a data directory.
        case file
        /// PostgreSQL.
        case postgres
        /// ClickHouse (`--clickhouse-url`; only when asked for with `--store clickhouse`).
        case clickhouse
    }

    /// Contradictory options; the message says how to resolve them (it names options, never the
    /// connection URL, which may hold a password).
    public struct Conflict: Error, Sendable, Hashable, CustomStringConvertible {
        /// Which options contradict each other, stable across releases. A struct, so that a kind
        /// added later breaks no `switch`.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            private enum Base: String {
                case databaseURLWithFileStore = "database_url_with_file_store"
                case dataDirectoryWithPostgresStore = "data_dir_with_postgres_store"
                case bothStores = "both_stores"
            }
            private let base: Base
            private init(_ base: Base) { self.base = base }

            /// `--store file` with `--database-url`.
            public static let databaseURLWithFileStore = Code(.databaseURLWithFileStore)
            /// `--store postgres` with `--data-dir`.
            public static let dataDirectoryWithPostgresStore = Code(.dataDirectoryWithPostgresStore)
            /// `--data-dir` and `--database-url` without `--store` to choose between them.
            public static let bothStores = Code(.bothStores)

            /// The stable snake_case name (`both_stores`).
            public var description: String { base.rawValue }
        }

        /// Which options contradict each other.
        public internal(set) var code: Code
        /// What to tell the user.
        public internal(set) var message: String

        init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { message }
    }

    /// The store read.
    package var kind: Kind
    /// The file store's directory (for ``Kind/file``).
    package var directory: String
    /// The connection URL or conninfo (for ``Kind/postgres``); nil for libpq's `PG*` variables.
    package var conninfo: String?
    /// What chose it: `--store`, `--data-dir`, `--database-url`, `DATABASE_URL`, `PGHOST`,
    /// `PGDATABASE`, `TALLY_DATA_DIR` or `default`.
    package var chosenBy: String
    /// The other store the user may have meant, when one is configured too; nil otherwise.
    package var note: String?
    /// Where it is, for people: the directory, or `PostgreSQL` until the caller, once connected,
    /// names the database as the server does (never with a password).
    package var location: String

    /// The `store:` line of the table: kind, location, what chose it and the other store, if any.
    package var headline: String {
        "\(kind.rawValue) \(location) (" + (chosenBy == "default" ? "the default" : "from \(chosenBy)")
            + (note.map { "; " + $0 } ?? "") + ")"
    }

    /// Applies the rules above. `dataDirectory` and `databaseURL` are the options as given (nil when
    /// absent); `environment` is the process environment.
    package static func choose(
        store: Kind?,
        dataDirectory: String?,
        databaseURL: String?,
        environment: [String: String]
    ) throws(Conflict) -> SummaryStore {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let defaultDirectory = variable("TALLY_DATA_DIR") ?? "tally-data"
        let directory = dataDirectory ?? defaultDirectory
        let databaseVariable = ["DATABASE_URL", "PGHOST", "PGDATABASE"].first { variable($0) != nil }
        let conninfo = databaseURL ?? variable("DATABASE_URL")

        func file(_ chosenBy: String) -> SummaryStore {
            let note =
                chosenBy == "--store"
                ? nil : databaseVariable.map { "\($0) is set: --store postgres reads that database" }
            return SummaryStore(
                kind: .file,
                directory: directory,
                conninfo: nil,
                chosenBy: chosenBy,
                note: note,
                location: directory
            )
        }
        func postgres(_ chosenBy: String) -> SummaryStore {
            SummaryStore(
                kind: .postgres,
                directory: directory,
                conninfo: conninfo,
                chosenBy: chosenBy,
                note: chosenBy == "--store" || chosenBy == "--database-url"
                    ? nil : "--store file reads the file store in \(directory)",
                location: "PostgreSQL"
            )
        }

        switch store {
        case .clickhouse?:
            if dataDirectory != nil || databaseURL != nil {
                throw Conflict(.bothStores, "--data-dir and --database-url are not for --store clickhouse; drop them.")
            }
            return SummaryStore(
                kind: .clickhouse,
                directory: directory,
                conninfo: nil,
                chosenBy: "--store",
                note: nil,
                location: "ClickHouse"
            )
        case .file?:
            if databaseURL != nil {
                throw Conflict(.databaseURLWithFileStore, "--database-url is for --store postgres; drop one of them.")
            }
            return file("--store")
        case .postgres?:
            if dataDirectory != nil {
                throw Conflict(.dataDirectoryWithPostgresStore, "--data-dir is for --store file; drop one of them.")
            }
            return postgres("--store")
        case nil:
            if dataDirectory != nil, databaseURL != nil {
                throw Conflict(
                    .bothStores,
                    "both --data-dir and --database-url given: add --store file or --store postgres."
                )
            }
            if dataDirectory != nil { return file("--data-dir") }
            if databaseURL != nil { return postgres("--database-url") }
            if let databaseVariable { return postgres(databaseVariable) }
            return file(variable("TALLY_DATA_DIR") != nil ? "TALLY_DATA_DIR" : "default")
        }
    }
}
