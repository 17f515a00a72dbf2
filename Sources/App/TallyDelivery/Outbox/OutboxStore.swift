import TallyCore

/// An ``Outbox`` behind a serial queue of its own: the sink and the uploader reach it from async
/// code, its system calls (fsync, rename, flock) run off Swift's cooperative threads, one at a time.
package final class OutboxStore: Sendable {
    private let io = BlockingIO(label: "tally.outbox")
    // Used only on `io` (its system calls), but for the lock below.
    private let outbox: Outbox

    package init(_ outbox: Outbox) {
        self.outbox = outbox
    }

    /// Runs `body` with the outbox on the queue.
    package func run<Value: Sendable>(_ body: @escaping @Sendable (Outbox) -> Value) async -> Value {
        let outbox = self.outbox
        return await io.run { _ in body(outbox) }
    }

    /// The upload lock, which is safe to use from any thread.
    package var uploadLock: FileLock { outbox.uploadLock }
}
