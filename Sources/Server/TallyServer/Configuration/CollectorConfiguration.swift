package import TallyCompression

/// Everything `tally serve` is told: where to listen, and its limits and timeouts.
package struct CollectorConfiguration: Sendable {
    /// The address to bind (`127.0.0.1`).
    package var host: String = "127.0.0.1"
    /// The port (0: any free port).
    package var port: Int = 8080
    /// A body larger than this as sent is refused with 413 (Segment's 500 KB).
    package var maxRequestBytes: Int = 500 * 1024
    /// What a compressed body may inflate to, and by how much.
    package var inflate = Inflater.Limits(maxOutputBytes: 8 << 20, maxRatio: 100)
    /// The largest header field, and all of them together, in bytes.
    package var maxHeaderBytes: Int = 16 * 1024
    /// The most header fields of a request.
    package var maxHeaderCount: Int = 100
    /// A connection with nothing in progress is closed after this long.
    package var idleTimeout: Duration = .seconds(30)
    /// A request whose head and body have not arrived this long after its first byte is closed.
    package var readTimeout: Duration = .seconds(30)
    /// How long a request waits for its events to be durable before it is answered 503.
    package var requestTimeout: Duration = .seconds(10)
    /// Connections at most; more wait in the kernel's backlog.
    package var maxConnections: Int = 1024
    /// Events waiting for a commit round past which requests get 429.
    package var maxPendingEvents: Int = 50_000
    /// Events per commit round at most.
    package var maxRoundEvents: Int = 5_000
    /// Seconds a 429 or 503 tells the client to wait (`Retry-After`).
    package var retryAfterSeconds: Int = 5
    /// Accept requests without a key (source `anonymous`): local development only.
    package var allowAnonymous = false

    package init() {}
}
