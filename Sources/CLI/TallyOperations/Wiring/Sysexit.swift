import ArgumentParser

/// tally's exit codes: the BSD sysexits values, one meaning each, the same in every command.
///
/// Scripts and service units branch on them (deploy/systemd/tally-spool-ingest puts a file back for
/// a later run on 69, 74 and 75), so a code never changes meaning between commands.
extension ExitCode {
    /// 1: a check ran and found problems (`schema lint`, `schema diff`, `schema verify`, `status`,
    /// `doctor`, an event `schema show` does not know, an import that imported nothing).
    static let findings = ExitCode.failure
    /// 64 (`EX_USAGE`): bad arguments, a missing or unreadable input file, a directory given as an
    /// input, `--until` not after `--since`; also swift-argument-parser's `ValidationError`.
    static let usage = ExitCode.validationFailure
    /// 65 (`EX_DATAERR`): the input data is wrong: more lines rejected than `--max-rejects`, no
    /// line accepted at all, a tracking-plan registry with problems, an edited migration.
    static let dataError = ExitCode(65)
    /// 66 (`EX_NOINPUT`): the store to read does not exist (no file store at `--data-dir`).
    static let noInput = ExitCode(66)
    /// 69 (`EX_UNAVAILABLE`): the database cannot be reached or refused the connection. Nothing was
    /// read or written; run the command again later.
    static let unavailable = ExitCode(69)
    /// 73 (`EX_CANTCREAT`): a directory to write to (the data directory, the rejects file's) cannot
    /// be written. Checked before anything is read.
    static let cannotCreate = ExitCode(73)
    /// 74 (`EX_IOERR`): reading an input or the store failed, events could not be stored, or the
    /// database refused a statement (no tally tables: run `tally migrate`).
    static let ioError = ExitCode(74)
    /// 75 (`EX_TEMPFAIL`): stopped by SIGTERM or SIGINT; what was accepted is stored, and running
    /// the same command again finishes the work.
    static let temporaryFailure = ExitCode(75)
}
