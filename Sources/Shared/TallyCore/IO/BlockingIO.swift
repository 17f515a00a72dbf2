import Dispatch

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where tally's blocking calls run: libpq, `read(2)` of ingest inputs, `write(2)` and `fsync(2)`
/// of the file store.
///
/// Swift's cooperative pool has one thread per core (two here): a call that blocks one of them for
/// a whole network round trip, a disk flush or a silent stdin stalls every task scheduled on it.
/// Each `BlockingIO` is a serial dispatch queue, which runs on a thread of its own while busy, so
/// whatever its bodies touch (a libpq handle, open file descriptors) is confined to it and its
/// calls keep their order.
///
/// Cancellation cannot stop a thread inside a system call, so a body is told instead: the
/// ``Interruption`` it is handed is requested, and `onCancel` runs (libpq's `PQcancel`). The call
/// still returns only once the body did, so nothing it touches outlives the call.
package final class BlockingIO: Sendable {
    private let queue: DispatchQueue

    /// A new serial queue named `label` (shown by debuggers and in crash reports).
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on this queue, after the calls before it, and returns what it returned.
    ///
    /// - Parameters:
    ///   - interruption: requested when the calling task is cancelled; pass one of your own to
    ///     interrupt the body for another reason too (a graceful shutdown).
    ///   - onCancel: called once, from the cancelling thread, when the task is cancelled while the
    ///     call is in progress; it must not block.
    package func run<Value: Sendable, Failure: Error>(
        interruption: Interruption = Interruption(),
        onCancel: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable (Interruption) throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
                queue.async {
                    continuation.resume(returning: Result { () throws(Failure) -> Value in try body(interruption) })
                }
            }
        } onCancel: {
            interruption.request()
            onCancel?()
        }
        return try result.get()
    }

    /// `read(2)` into `buffer` that gives up when `interruption` is requested: it waits for input
    /// in `poll(2)` slices of 100 ms, so an idle pipe or terminal never holds a shutdown up longer.
    ///
    /// Call it on a `BlockingIO` queue. Returns the byte count (0 at end of input), or nil when
    /// interrupted before any input came.
    package static func read(
        _ descriptor: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        path: String,
        interruption: Interruption
    ) throws(IOError) -> Int? {
        while true {
            if interruption.isRequested { return nil }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                throw IOError(.poll, path: path, errno: errno)
            }
            // Readable, at end (POLLHUP) or in error: read(2) says which.
            guard ready > 0 else { continue }
            let count = systemRead(descriptor, buffer)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw IOError(.read, path: path, errno: errno)
            }
            return count
        }
    }
}
