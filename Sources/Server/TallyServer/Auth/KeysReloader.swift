import Dispatch
package import Logging
import ServiceLifecycle
package import UnixSignals

/// Reads the keys file again on SIGHUP (`systemctl reload`) and puts its keys in place for the
/// requests that start from then on; requests in flight finish with the keys they started with.
///
/// A file that cannot be read or used (missing, not JSON, a bad entry, a registry with problems)
/// changes nothing: the keys loaded before stay in use and the failure is logged, so a collector
/// is never left without its keys by a reload.
package final class KeysReloader: Service, Sendable {
    private let collector: Collector
    private let path: String?
    private let signals: UnixSignalsSequence
    private let load: @Sendable () throws -> WriteKeyTable
    private let logger: Logger

    /// Reloads from `path` with `load` on each of `signals`; `load` reads the file and builds the
    /// table exactly as the collector's start did. Without a path (no keys file) a signal is
    /// logged and changes nothing.
    package init(
        collector: Collector,
        path: String?,
        signals: UnixSignalsSequence,
        logger: Logger,
        load: @escaping @Sendable () throws -> WriteKeyTable
    ) {
        self.collector = collector
        self.path = path
        self.signals = signals
        self.logger = logger
        self.load = load
    }

    /// Reloads on every signal until the collector shuts down.
    package func run() async {
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    /// Reads the keys file and replaces the keys; on failure keeps them. Whether it replaced them.
    @discardableResult
    package func reload() async -> Bool {
        guard let path else {
            logger.notice("SIGHUP: the collector runs without a keys file (--keys): nothing to reload")
            return false
        }
        // Reading the file and loading the keys' registries is blocking I/O: not on an event loop.
        let load = self.load
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<WriteKeyTable, any Error>, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: Result { try load() }) }
        }
        switch result {
        case .success(let keys):
            collector.replaceKeys(keys)
            collector.metrics.keysReloaded(applied: true)
            let accepted = "\(keys.count) key\(keys.count == 1 ? "" : "s") accepted"
            logger.notice("reloaded the keys file \(path): \(accepted), \(keys.rotatedCount) of them rotated")
            if keys.count == 0 {
                logger.warning(
                    keys.anonymous == nil
                        ? "the keys file \(path) has no accepted keys: every request is refused (401)"
                        : "the keys file \(path) has no accepted keys: requests with any key or none are accepted"
                )
            }
            return true
        case .failure(let error):
            collector.metrics.keysReloaded(applied: false)
            let kept = collector.keys.count
            logger.error(
                "cannot reload the keys: \(error); the \(kept) keys loaded before stay in use"
            )
            return false
        }
    }
}
