import Foundation
package import TallyServer

/// Reading and writing a keys file with the exit codes every keys command, `tally serve` and
/// `tally dashboard` use.
package enum KeysFileAccess {
    /// Reads the keys file at `path`.
    /// - Throws: ``CommandFailure``: 66 when there is no such file, 65 when it is not a keys file.
    package static func read(_ path: String) throws -> WriteKeysFile {
        do {
            return try WriteKeysFile.load(path)
        } catch  where FileErrorText.isMissingFile(error) {
            throw CommandFailure(.noInput, "no keys file at \(path); `tally keys add --keys \(path)` makes one")
        } catch {
            throw CommandFailure(.dataError, "cannot read the keys file \(path): \(FileErrorText.describe(error))")
        }
    }

    /// Writes `file` in place of the keys file at `path` (its mode, owner and group kept).
    /// - Throws: ``CommandFailure``: 73 when it cannot be written there, 74 when the device failed.
    package static func write(_ file: WriteKeysFile, to path: String) throws {
        do {
            try file.save(path)
        } catch {
            throw CommandFailure(
                FileErrorText.writeFailureCode(error),
                "cannot write the keys file \(path): \(FileErrorText.describe(error))"
            )
        }
    }

    /// What to do next for a running collector to see a change.
    package static let reloadHint =
        "a running tally serve takes it on reload: systemctl reload tally-serve, or kill -HUP its PID"

    /// Where a reader key is used.
    package static let dashboardHint = "tally dashboard --keys takes it (restart a running dashboard to use it)"
}
