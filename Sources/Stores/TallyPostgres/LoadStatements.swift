/// The SQL a ``PostgresLoader`` runs, prepared or sent as is.
enum LoadStatements {
    /// The `COPY` of a batch straight into `tally.events`.
    ///
    /// On PostgreSQL 12 to 16 it inserts row by row: a volatile `WHERE` (always true) turns off
    /// `COPY`'s multi-insert buffer, whose slot per buffered row pins the table's descriptor in the
    /// resource owner, and those versions' resource owners add and forget n pins of one pointer in
    /// n² steps (docs/collector.md has the profile and figures, measured on 15). Kept otherwise:
    /// before 12 `COPY` takes no `WHERE`, Citus refuses one, and 17 rewrote the resource owner
    /// (not measured here).
    static func copyEvents(serverVersion: Int, citus: Bool) -> String {
        let copy = "COPY tally.events (\(CopyBinaryEncoder.columns)) FROM STDIN (FORMAT binary)"
        let rowByRow = (120_000..<170_000).contains(serverVersion) && !citus
        return rowByRow ? copy + " WHERE random() >= 0" : copy
    }

    /// The server's version number and whether Citus is installed, for ``copyEvents(serverVersion:citus:)``.
    static let serverTraits = """
        SELECT current_setting('server_version_num'), EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')
        """

    static let rollupStatementName = "tally_rollups"

    /// Rollup rows and per-day actors from binary array parameters (``RollupBatch``); prepared once
    /// per connection. The actors come as one flat array ($11) and, per (day, feature), the bounds
    /// of its slice ($9, $10): a row per group with no unnest and regrouping on the server. $12 is
    /// each rollup row's `unsampled_estimate` (sampled events, sql/0009); $13 to $18 the actors per
    /// (day, event name) the same way, with a flag per group for sampled events (sql/0012).
    static let rollupStatement = """
        WITH rollup AS (
            INSERT INTO tally.rollup_hourly AS r (hour, feature, name, events, first_seen, last_seen, unsampled_estimate)
            SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::timestamptz[], $12::float8[])
            ON CONFLICT (hour, feature, name) DO UPDATE SET events = r.events + excluded.events,
                first_seen = least(r.first_seen, excluded.first_seen), last_seen = greatest(r.last_seen, excluded.last_seen),
                unsampled_estimate = r.unsampled_estimate + excluded.unsampled_estimate
            RETURNING 1
        ), actors AS (
            INSERT INTO tally.daily_actor_sets (day, feature, actors)
            SELECT g.day, g.feature, ($11::text[])[g.first:g.last]
            FROM unnest($7::date[], $8::text[], $9::int[], $10::int[]) AS g(day, feature, first, last)
            RETURNING 1
        )
        INSERT INTO tally.daily_name_actor_sets (day, name, actors, sampled)
        SELECT g.day, g.name, ($17::text[])[g.first:g.last], g.sampled <> 0
        FROM unnest($13::date[], $14::text[], $15::int[], $16::int[], $18::int[]) AS g(day, name, first, last, sampled)
        """

    // RETURNING only the key, then the rest from the staging rows: the writer role needs SELECT on
    // nothing but (event_id, occurred_at) of tally.events. (The staging table spells out its columns
    // for the same reason: `LIKE tally.events` would need SELECT on the whole table.)
    static let insertStatement = """
        WITH keys AS (
            INSERT INTO tally.events (\(CopyBinaryEncoder.columns))
            SELECT \(CopyBinaryEncoder.columns) FROM tally_staging
            ON CONFLICT DO NOTHING
            RETURNING event_id, occurred_at
        ), inserted AS (
            SELECT s.occurred_at, s.feature, s.name, coalesce(s.user_id, s.anonymous_id) AS actor, s.sample_rate
            FROM tally_staging s JOIN keys k ON k.event_id = s.event_id AND k.occurred_at = s.occurred_at
        ), rollup AS (
            INSERT INTO tally.rollup_hourly AS r (hour, feature, name, events, first_seen, last_seen, unsampled_estimate)
            SELECT date_trunc('hour', occurred_at, 'UTC'), feature, name, count(*), min(occurred_at), max(occurred_at),
                coalesce(sum(1 / sample_rate - 1), 0)
            FROM inserted GROUP BY 1, 2, 3
            ON CONFLICT (hour, feature, name) DO UPDATE SET events = r.events + excluded.events,
                first_seen = least(r.first_seen, excluded.first_seen), last_seen = greatest(r.last_seen, excluded.last_seen),
                unsampled_estimate = r.unsampled_estimate + excluded.unsampled_estimate
            RETURNING 1
        ), actors AS (
            INSERT INTO tally.daily_actor_sets (day, feature, actors)
            SELECT (occurred_at AT TIME ZONE 'UTC')::date, feature, array_agg(DISTINCT actor) FROM inserted
            WHERE actor IS NOT NULL GROUP BY 1, 2
            RETURNING 1
        ), name_actors AS (
            INSERT INTO tally.daily_name_actor_sets (day, name, actors, sampled)
            SELECT (occurred_at AT TIME ZONE 'UTC')::date, name, array_agg(DISTINCT actor), bool_or(sample_rate IS NOT NULL)
            FROM inserted WHERE actor IS NOT NULL GROUP BY 1, 2
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM keys), (SELECT count(*) FROM rollup), (SELECT count(*) FROM actors)
        """

    static let insertOnlyStatement = """
        WITH keys AS (
            INSERT INTO tally.events (\(CopyBinaryEncoder.columns))
            SELECT \(CopyBinaryEncoder.columns) FROM tally_staging
            ON CONFLICT DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM keys
        """
}
