/// tally's exit codes: the BSD sysexits values, one meaning each, the same in every command.
///
/// Scripts and service units branch on them (deploy/systemd/tally-spool-ingest puts a file back for
/// a later run on 69, 74 and 75), so a code never changes meaning between commands.
package struct Sysexit: Sendable, Hashable, CustomStringConvertible {
    /// The process's exit status.
    package var rawValue: Int32

    package init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// 1: a check ran and found problems (`schema lint`, `schema diff`, `schema verify`, `status`,
    /// `doctor`, an event `schema show` does not know, an import that imported nothing).
    package static let findings = Sysexit(1)
    /// 64 (`EX_USAGE`): bad arguments, a missing or unreadable input file, a directory given as an
    /// input, `--until` not after `--since`; also swift-argument-parser's `ValidationError`.
    package static let usage = Sysexit(64)
    /// 65 (`EX_DATAERR`): the input data is wrong: more lines rejected than `--max-rejects`, no
    /// line accepted at all, a tracking-plan registry with problems, an edited migration.
    package static let dataError = Sysexit(65)
    /// 66 (`EX_NOINPUT`): the store to read does not exist (no file store at `--data-dir`).
    package static let noInput = Sysexit(66)
    /// 69 (`EX_UNAVAILABLE`): the database cannot be reached or refused the connection. Nothing was
    /// read or written; run the command again later.
    package static let unavailable = Sysexit(69)
    /// 73 (`EX_CANTCREAT`): a directory to write to (the data directory, the rejects file's) cannot
    /// be written. Checked before anything is read.
    package static let cannotCreate = Sysexit(73)
    /// 74 (`EX_IOERR`): reading an input or the store failed, events could not be stored, or the
    /// database refused a statement (no tally tables: run `tally migrate`).
    package static let ioError = Sysexit(74)
    /// 75 (`EX_TEMPFAIL`): stopped by SIGTERM or SIGINT; what was accepted is stored, and running
    /// the same command again finishes the work.
    package static let temporaryFailure = Sysexit(75)

    package var description: String { String(rawValue) }
}
