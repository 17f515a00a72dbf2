/// An error that says whether retrying the operation that threw it can help.
///
/// Throw one from ``EventSink/write(_:)`` so that the pipeline retries only what may succeed later
/// and dead-letters the rest at once. ``PipelineError``, `IOError` and `PostgresError` conform;
/// an error that does not is taken as ``SinkErrorClass/transient``.
public protocol ClassifiedError: Error {
    /// Whether a retry may succeed.
    var errorClass: SinkErrorClass { get }
    /// The stable code a dead letter of this error records as its reason (`timedOut`,
    /// `postgres_08006`); `sink_error` by default.
    var reasonCode: String { get }
}

extension ClassifiedError {
    public var reasonCode: String { "sink_error" }
}
