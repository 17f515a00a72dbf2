import TallyCore
import TallyPipeline

/// The statements that add rows to `tally.failed_events`, one per ``TallyPipeline/Reject``: the
/// collector's rejects and dead letters (``PostgresRejectSink``), and the events the server itself
/// refused (``PostgresSink``). The values are the reject's (``TallyPipeline/Reject/detail``,
/// ``TallyPipeline/Reject/eventJSON``), as ClickHouse keeps them.
enum FailedEventRows {
    /// Adds the row of the reject whose ``parameters(_:)`` are bound.
    static let insert = """
        INSERT INTO tally.failed_events (failed_at, event_id, reason, detail, event)
        VALUES ($1::timestamptz, $2::uuid, $3, $4, $5)
        """

    /// Updates the row `$6` that a replayed event came from with its new reason, or adds one if a
    /// transaction that stored another event of that row already deleted it.
    static let replace = """
        WITH kept AS (
            UPDATE tally.failed_events SET failed_at = $1::timestamptz, event_id = $2::uuid, reason = $3, detail = $4
            WHERE id = $6::bigint RETURNING 1
        )
        INSERT INTO tally.failed_events (failed_at, event_id, reason, detail, event)
        SELECT $1::timestamptz, $2::uuid, $3, $4, $5 WHERE NOT EXISTS (SELECT FROM kept)
        """

    /// `failed_at`, `event_id`, `reason`, `detail`, `event`.
    static func parameters(_ reject: Reject) -> [String?] {
        [
            reject.failedAt.rfc3339, reject.eventID?.description, reject.reason.code, reject.detail,
            String(decoding: reject.eventJSON, as: UTF8.self),
        ]
    }
}
