/// A sink that can tell whether its store answers: `tally serve` is ready (`/readyz`) only while
/// every sink it writes to is.
package protocol ReadinessProbe: Sendable {
    /// Whether a write could succeed now (the database answers, the directory is writable).
    func isReachable() async -> Bool
}
