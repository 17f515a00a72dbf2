import Foundation
import TallyCore
package import TallyFileStore

/// `tally compact` on a data directory: the compactor run, failures turned into the command's
/// messages and exit codes.
package enum Compaction {
    /// Compacts the file store in `directory` (66 when there is none); says on stderr when it waits
    /// for another compact or replay.
    package static func run(directory: String, options: FileStoreCompactor.Options) throws -> CompactionReport {
        guard FileManager.default.fileExists(atPath: directory) else {
            throw CommandFailure(.noInput, "no file store at \(directory) (pass --data-dir, or set TALLY_DATA_DIR)")
        }
        do {
            return try FileStoreCompactor(directory: directory).run(options) {
                Terminal.error("waiting: another tally compact or tally replay is working on \(directory)")
            }
        } catch let error as IOError {
            throw CommandFailure(
                FileErrorText.writeFailureCode(error),
                "cannot compact \(directory): \(error) (files not yet replaced are as they were)"
            )
        }
    }
}
