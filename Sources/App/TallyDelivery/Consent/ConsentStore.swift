package import Logging
import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The consent of an outbox directory: `OUTBOX/consent.json`, written atomically (a temporary
/// file, `fsync`, `rename`, `fsync` of the directory) and read at launch.
///
/// ```json
/// {"consent":"pending","changed_at":"2026-11-22T10:15:00.000000Z"}
/// ```
///
/// Processes sharing the directory (an app and its extension) see each other's changes: the
/// uploader and the outbox sink call ``refresh()`` before they act, which re-reads the file when
/// its modification time or size changed (one `stat`).
package final class ConsentStore: Sendable {
    private struct Cached: Sendable {
        var state: ConsentState
        /// The file's (modification time in nanoseconds, size) when last read; nil: no file.
        var stamp: [Int64]?
    }

    package let path: String
    private let directory: String
    private let temporaryDirectory: String
    private let cached: Locked<Cached>
    private let logger: Logger

    /// Reads `OUTBOX/consent.json`, or takes `defaultState` (not written: a new install stays
    /// undecided on disk until the app decides). A file that cannot be parsed reads as `pending`:
    /// nothing leaves the device until the app sets consent again.
    package init(layout: OutboxLayout, defaultState: ConsentState, logger: Logger) {
        path = layout.root + "/consent.json"
        directory = layout.root
        temporaryDirectory = layout.temporary
        self.logger = logger
        let stamp = Self.stamp(path)
        let state = stamp == nil ? defaultState : Self.read(path, logger: logger)
        cached = Locked(Cached(state: state, stamp: stamp))
    }

    /// The consent in force (as last read or set).
    package var state: ConsentState { cached.withLock { $0.state } }

    /// The consent in force, re-reading the file if another process changed it.
    @discardableResult
    package func refresh() -> ConsentState {
        let stamp = Self.stamp(path)
        let (changed, state) = cached.withLock { ($0.stamp != stamp && stamp != nil, $0.state) }
        guard changed else { return state }
        let read = Self.read(path, logger: logger)
        cached.withLock {
            $0.state = read
            $0.stamp = stamp
        }
        return read
    }

    /// Records `state` in the file, then in memory. Throws when the file cannot be written (the
    /// consent in force is then unchanged, so the app can tell the user).
    package func set(_ state: ConsentState) throws(DeliveryError) {
        let line = #"{"consent":""# + state.rawValue + #"","changed_at":""# + Timestamp.now().rfc3339 + "\"}\n"
        try SystemFiles.writeAtomically(
            Array(line.utf8),
            to: path,
            directory: directory,
            temporaryDirectory: temporaryDirectory
        )
        let stamp = Self.stamp(path)
        cached.withLock {
            $0.state = state
            $0.stamp = stamp
        }
    }

    private static func read(_ path: String, logger: Logger) -> ConsentState {
        guard let bytes = SystemFiles.read(path), let value = try? JSONParser.parse(bytes),
            let state = value["consent"]?.stringValue.flatMap(ConsentState.init(rawValue:))
        else {
            logger.error(
                "consent: cannot read the consent file, holding uploads until the app sets consent",
                metadata: ["tally.file": "\(path)"]
            )
            return .pending
        }
        return state
    }

    private static func stamp(_ path: String) -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
            let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return [modified, Int64(info.st_size), Int64(info.st_ino)]
    }
}
