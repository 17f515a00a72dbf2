/// A request to stop, set from any thread and read by a blocking body between its waits.
package final class Interruption: Sendable {
    private let requested = Locked(false)

    /// Not requested yet.
    package init() {}

    /// Asks the body to return early. Idempotent.
    package func request() {
        requested.withLock { $0 = true }
    }

    /// Whether ``request()`` was called.
    package var isRequested: Bool {
        requested.withLock { $0 }
    }
}
