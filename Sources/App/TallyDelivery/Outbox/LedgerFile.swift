import Foundation
import Logging
import TallyCore

/// An outbox's `state.json` (its ``OutboxLedger``) and `state.lock`, with 64 KiB kept aside in
/// `tmp/reserve` so that the state can still be saved on a full disk: deleting uploaded batches,
/// which is how the space comes back, needs the state saved first.
///
/// Used by ``Outbox`` only, on its queue, with ``lock`` held around each load and save.
final class LedgerFile {
    let layout: OutboxLayout
    let lock: FileLock
    private let logger: Logger
    /// Whether `tmp/reserve` holds its 64 KiB.
    private var hasReserve = false

    init(layout: OutboxLayout, lock: FileLock, logger: Logger) {
        self.layout = layout
        self.lock = lock
        self.logger = logger
    }

    func load() -> OutboxLedger {
        guard let bytes = SystemFiles.read(layout.state) else {
            // A new directory (or a lost state): its outbox id is fixed by saving it at once.
            let fresh = OutboxLedger(outboxID: UUID().uuidString.lowercased())
            _ = save(fresh)
            return fresh
        }
        do {
            return try Self.decoder.decode(OutboxLedger.self, from: Data(bytes))
        } catch {
            // Unreadable state: keep it for inspection, start counting again from the files.
            let aside = layout.corrupt + "/state-\(Timestamp.now().secondsSinceEpoch).json"
            try? SystemFiles.move(layout.state, to: aside)
            logger.error("outbox: state.json unreadable, moved aside", metadata: ["tally.file": "\(aside)"])
            return OutboxLedger(outboxID: UUID().uuidString.lowercased())
        }
    }

    func save(_ ledger: OutboxLedger) -> Bool {
        guard let encoded = try? Self.encoder.encode(ledger) else { return false }
        let bytes = [UInt8](encoded) + [UInt8(ascii: "\n")]
        do {
            try SystemFiles.writeAtomically(
                bytes,
                to: layout.state,
                directory: layout.root,
                temporaryDirectory: layout.temporary
            )
            return true
        } catch {
            // A full disk: the reserve makes room for the state, so that uploaded batches can
            // still be counted and deleted, which is how the space comes back.
            if SystemFiles.isDiskFull(error) && hasReserve {
                SystemFiles.remove(reservePath)
                hasReserve = false
                if (try? SystemFiles.writeAtomically(
                    bytes,
                    to: layout.state,
                    directory: layout.root,
                    temporaryDirectory: layout.temporary
                )) != nil {
                    return true
                }
            }
            logger.error("outbox: cannot save state.json", metadata: ["error": "\(error)"])
            return false
        }
    }

    private var reservePath: String { layout.temporary + "/reserve" }

    /// 64 KiB kept aside in `tmp/reserve`, given up when a full disk would block saving the state.
    func makeReserve() {
        guard !hasReserve else { return }
        if SystemFiles.list(layout.temporary).contains(where: { $0.name == "reserve" && $0.size == 64 << 10 }) {
            hasReserve = true
            return
        }
        if (try? SystemFiles.writeAtomically(
            [UInt8](repeating: 0, count: 64 << 10),
            to: reservePath,
            directory: layout.temporary,
            temporaryDirectory: layout.temporary
        )) != nil {
            hasReserve = true
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder = JSONDecoder()
}
