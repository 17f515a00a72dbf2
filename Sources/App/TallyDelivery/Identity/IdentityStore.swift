import Foundation
import Logging
import TallyCore

/// The outbox's `identity.json` (an ``InstallState``): read at launch, written atomically (a
/// temporary file, `fsync`, `rename`, `fsync` of the directory), so a crash leaves the old state
/// or the new one.
///
/// Used from one serial queue at a time (the outbox's, or the initializer before anything runs).
struct IdentityStore: Sendable {
    let path: String
    let directory: String
    let temporaryDirectory: String
    let logger: Logger

    init(layout: OutboxLayout, logger: Logger) {
        path = layout.root + "/identity.json"
        directory = layout.root
        temporaryDirectory = layout.temporary
        self.logger = logger
    }

    /// The stored state; nil for a new install. An unreadable file is moved aside (like a corrupt
    /// `state.json`) and reads as a new install.
    func load() -> InstallState? {
        guard let bytes = SystemFiles.read(path) else { return nil }
        do {
            return try JSONDecoder().decode(InstallState.self, from: Data(bytes))
        } catch {
            let aside = directory + "/corrupt/identity-\(Timestamp.now().secondsSinceEpoch).json"
            try? SystemFiles.move(path, to: aside)
            logger.error("outbox: identity.json unreadable, moved aside", metadata: ["tally.file": "\(aside)"])
            return nil
        }
    }

    /// Writes `state`; false (logged) when it could not.
    @discardableResult
    func save(_ state: InstallState) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let bytes = [UInt8](try encoder.encode(state)) + [UInt8(ascii: "\n")]
            try SystemFiles.writeAtomically(
                bytes,
                to: path,
                directory: directory,
                temporaryDirectory: temporaryDirectory
            )
            return true
        } catch {
            logger.error("outbox: cannot save identity.json", metadata: ["error": "\(error)"])
            return false
        }
    }
}
