/// Waits for something a test cannot be told about directly, by polling it with a deadline: what a
/// test waits for is the event itself, never a guess at how long it takes.
public enum Eventually {
    /// Thrown when the condition still does not hold at the deadline.
    public struct TimedOut: Error, CustomStringConvertible {
        /// What was waited for.
        public var what: String
        /// How long.
        public var timeout: Duration

        public var description: String { "still not \(what) after \(timeout)" }
    }

    /// Returns once `condition` holds, checking it every `interval`; throws ``TimedOut`` after `timeout`.
    public static func wait(
        until what: String,
        timeout: Duration = .seconds(30),
        interval: Duration = .milliseconds(10),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what, timeout: timeout) }
            try await Task.sleep(for: interval)
        }
    }
}
