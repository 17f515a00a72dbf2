import ArgumentParser
import Foundation
import TallyServer

/// `--keys FILE`, and reading and writing that file with the exit codes every keys command uses.
struct KeysFileOption: ParsableArguments {
    @Option(name: .long, help: "The keys file.")
    var keys: String

    /// Reads the file.
    /// - Throws: ``CommandFailure``: 66 when there is no such file, 65 when it is not a keys file.
    func read() throws -> WriteKeysFile {
        try Self.read(keys)
    }

    /// Reads the keys file at `path`, with the exit codes of ``read()``.
    static func read(_ path: String) throws -> WriteKeysFile {
        do {
            return try WriteKeysFile.load(path)
        } catch  where FileErrorText.isMissingFile(error) {
            throw CommandFailure(.noInput, "no keys file at \(path); `tally keys add --keys \(path)` makes one")
        } catch {
            throw CommandFailure(.dataError, "cannot read the keys file \(path): \(FileErrorText.describe(error))")
        }
    }

    /// Writes `file` in place of the keys file (its mode, owner and group kept).
    /// - Throws: ``CommandFailure``: 73 when it cannot be written there, 74 when the device failed.
    func write(_ file: WriteKeysFile) throws {
        do {
            try file.save(keys)
        } catch {
            throw CommandFailure(
                FileErrorText.writeFailureCode(error),
                "cannot write the keys file \(keys): \(FileErrorText.describe(error))"
            )
        }
    }

    /// What to do next for a running collector to see a change.
    static let reloadHint =
        "a running tally serve takes it on reload: systemctl reload tally-serve, or kill -HUP its PID"

    /// Where a reader key is used.
    static let dashboardHint = "tally dashboard --keys takes it (restart a running dashboard to use it)"
}
