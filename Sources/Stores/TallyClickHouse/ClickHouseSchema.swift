import TallyCore

/// tally's tables on ClickHouse, as numbered migrations each node applies in turn.
///
/// Every node holds the same tables: `*_local` tables with the rows of its shard, and
/// `Distributed` tables over them (`tally.events`, `tally.identities`, `tally.failed_events`) that
/// route inserts and fan queries out to every shard of the cluster named in the server's
/// `remote_servers` (``ClickHouseSchema/cluster``). Events are sharded by a hash of their actor
/// (the user id, else the anonymous id), so each actor's events sit on one shard: unique users
/// add up across shards, and a re-sent copy lands on the shard of its original.
///
/// Only SQL that 18.16 (Debian's package) and current releases both accept: timestamps are
/// `Int64` microseconds since 1970 (no `DateTime64` before 20.1), properties are the JSON text
/// byte for byte plus flattened `property_keys` / `property_values` arrays for filters (no
/// `JSONExtract*` before 19.x).
package enum ClickHouseSchema {
    /// The cluster name in `remote_servers` that the `Distributed` tables use.
    package static let cluster = "tally"

    /// One migration: its version, a name and the statements, run in order, each idempotent.
    package struct Migration: Sendable {
        package var version: Int
        package var name: String
        package var statements: [String]

        /// A checksum of the statements: an applied migration that was edited is refused.
        package var checksum: String {
            var text: [UInt8] = []
            for statement in statements { text += Array(statement.utf8) + [0] }
            return SHA256Hex.of(text)
        }
    }

    /// The events' columns in insert order, after the key columns: what ``ClickHouseRowEncoder``
    /// writes for each event.
    package static let eventColumns = [
        "event_id", "day", "occurred_at", "name", "feature", "actor", "user_id", "anonymous_id", "session_id",
        "properties", "property_keys", "property_values", "context", "schema_version", "violations", "sent_at",
        "received_at", "source_id", "corrected_at", "sample_rate", "device_occurred_at",
    ]

    /// The identity records' columns in insert order.
    package static let identityColumns = [
        "event_id", "day", "occurred_at", "type", "name", "actor", "user_id", "anonymous_id", "group_id",
        "previous_id", "traits", "context", "sent_at", "received_at", "source_id", "corrected_at",
        "device_occurred_at",
    ]

    /// The failed events' columns in insert order.
    package static let failedColumns = ["event_id", "reason", "detail", "event"]

    package static let migrations: [Migration] = [
        Migration(
            version: 1,
            name: "events",
            statements: [
                "CREATE DATABASE IF NOT EXISTS tally",
                """
                CREATE TABLE IF NOT EXISTS tally.events_local (
                    event_id UUID,
                    day Date,
                    occurred_at Int64,
                    name String,
                    feature String,
                    actor String,
                    user_id Nullable(String),
                    anonymous_id Nullable(String),
                    session_id Nullable(String),
                    properties String,
                    property_keys Array(String),
                    property_values Array(String),
                    context Nullable(String),
                    schema_version Nullable(String),
                    violations Nullable(String),
                    sent_at Nullable(Int64),
                    received_at Nullable(Int64),
                    source_id Nullable(String),
                    corrected_at Nullable(Int64),
                    sample_rate Nullable(Float64),
                    device_occurred_at Nullable(Int64),
                    inserted_at DateTime DEFAULT now()
                ) ENGINE = ReplacingMergeTree
                PARTITION BY toYYYYMM(day)
                ORDER BY (feature, day, name, cityHash64(actor), event_id)
                """,
                """
                CREATE TABLE IF NOT EXISTS tally.events AS tally.events_local
                ENGINE = Distributed(\(cluster), tally, events_local, cityHash64(actor))
                """,
                """
                CREATE TABLE IF NOT EXISTS tally.identities_local (
                    event_id UUID,
                    day Date,
                    occurred_at Int64,
                    type String,
                    name String,
                    actor String,
                    user_id Nullable(String),
                    anonymous_id Nullable(String),
                    group_id Nullable(String),
                    previous_id Nullable(String),
                    traits String,
                    context Nullable(String),
                    sent_at Nullable(Int64),
                    received_at Nullable(Int64),
                    source_id Nullable(String),
                    corrected_at Nullable(Int64),
                    device_occurred_at Nullable(Int64),
                    inserted_at DateTime DEFAULT now()
                ) ENGINE = ReplacingMergeTree
                PARTITION BY toYYYYMM(day)
                ORDER BY (type, day, event_id)
                """,
                """
                CREATE TABLE IF NOT EXISTS tally.identities AS tally.identities_local
                ENGINE = Distributed(\(cluster), tally, identities_local, cityHash64(actor))
                """,
                """
                CREATE TABLE IF NOT EXISTS tally.failed_events_local (
                    failed_at DateTime DEFAULT now(),
                    event_id String,
                    reason String,
                    detail String,
                    event String
                ) ENGINE = MergeTree
                PARTITION BY toYYYYMM(failed_at)
                ORDER BY failed_at
                """,
                """
                CREATE TABLE IF NOT EXISTS tally.failed_events AS tally.failed_events_local
                ENGINE = Distributed(\(cluster), tally, failed_events_local, rand())
                """,
            ]
        )
    ]
}

/// SHA-256 in hex, for migration checksums.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String {
        SHA256.hex(SHA256.digest(bytes))
    }
}
