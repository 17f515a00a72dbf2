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
        ),
        Migration(version: 2, name: "rollups", statements: rollups),
    ]

    /// Rollups for `tally summary`, kept by materialized views on each shard's `events_local` (a
    /// view fires on every insert, re-sent copies included), so they hold sets, never counts:
    /// `uniqExactState(event_id)` per (feature, day, hour, name, sample rate), `min` / `max` of the
    /// times, and `uniqExactState(actor)` of identified actors per (feature, day). A copy adds an id
    /// or an actor already in the set, and merging states is a union: exact before and after merges,
    /// and whatever order views and the backfill run in. The backfill (the last statements) reads
    /// what `events_local` held before the views existed; running it again changes nothing.
    static let rollups = [
        """
        CREATE TABLE IF NOT EXISTS tally.events_hourly_local (
            feature String,
            day Date,
            hour Int64,
            name String,
            sample_rate Float64,
            events AggregateFunction(uniqExact, UUID),
            first_seen AggregateFunction(min, Int64),
            last_seen AggregateFunction(max, Int64)
        ) ENGINE = AggregatingMergeTree
        PARTITION BY toYYYYMM(day)
        ORDER BY (feature, day, hour, name, sample_rate)
        """,
        """
        CREATE TABLE IF NOT EXISTS tally.events_hourly AS tally.events_hourly_local
        ENGINE = Distributed(\(cluster), tally, events_hourly_local)
        """,
        """
        CREATE MATERIALIZED VIEW IF NOT EXISTS tally.events_hourly_view TO tally.events_hourly_local
        AS \(hourlySelect)
        """,
        """
        CREATE TABLE IF NOT EXISTS tally.actors_daily_local (
            feature String,
            day Date,
            actors AggregateFunction(uniqExact, String)
        ) ENGINE = AggregatingMergeTree
        PARTITION BY toYYYYMM(day)
        ORDER BY (feature, day)
        """,
        """
        CREATE TABLE IF NOT EXISTS tally.actors_daily AS tally.actors_daily_local
        ENGINE = Distributed(\(cluster), tally, actors_daily_local)
        """,
        """
        CREATE MATERIALIZED VIEW IF NOT EXISTS tally.actors_daily_view TO tally.actors_daily_local
        AS \(dailySelect)
        """,
        "INSERT INTO tally.events_hourly_local \(hourlySelect)",
        "INSERT INTO tally.actors_daily_local \(dailySelect)",
    ]

    /// One hour's events of a feature and name: hours are microseconds since 1970 at the hour's
    /// start; an unsampled event has rate 0.
    static let hourlySelect = """
        SELECT feature, day, intDiv(occurred_at, 3600000000) * 3600000000 AS hour, name,
            ifNull(sample_rate, 0.) AS sample_rate, uniqExactState(event_id) AS events,
            minState(occurred_at) AS first_seen, maxState(occurred_at) AS last_seen
        FROM tally.events_local GROUP BY feature, day, hour, name, sample_rate
        """

    /// One day's identified actors of a feature (what `tally summary` counts as users).
    static let dailySelect = """
        SELECT feature, day, uniqExactState(actor) AS actors FROM tally.events_local
        WHERE isNotNull(user_id) OR isNotNull(anonymous_id) GROUP BY feature, day
        """
}

/// SHA-256 in hex, for migration checksums.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String {
        SHA256.hex(SHA256.digest(bytes))
    }
}
