-- tally 0005: the per-day user sets as arrays, one row per (day, feature) and loaded batch,
-- instead of one row per (day, feature, user). Measured for 21,000 user-days: 12 ms to insert as
-- arrays, 94 ms as rows with a unique index (most of what rollup upkeep cost at ingest). Counts
-- stay exact: a user repeated across rows (concurrent batches, re-runs) is counted once by
-- count(DISTINCT …); tally.daily_actors remains, as a view with one row per user-day.
CREATE TABLE IF NOT EXISTS tally.daily_actor_sets (
    day     date   NOT NULL,
    feature text   NOT NULL,
    actors  text[] NOT NULL
);
CREATE INDEX IF NOT EXISTS daily_actor_sets_day_feature ON tally.daily_actor_sets (day, feature);

DO $$
BEGIN
    IF EXISTS (
        SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'tally' AND c.relname = 'daily_actors' AND c.relkind = 'r'
    ) THEN
        INSERT INTO tally.daily_actor_sets (day, feature, actors)
        SELECT day, feature, array_agg(actor ORDER BY actor) FROM tally.daily_actors GROUP BY day, feature;
        DROP TABLE tally.daily_actors;
    END IF;
END;
$$;

CREATE OR REPLACE VIEW tally.daily_actors AS
SELECT DISTINCT s.day, s.feature, a.actor
FROM tally.daily_actor_sets s CROSS JOIN LATERAL unnest(s.actors) AS a(actor);

GRANT INSERT ON tally.daily_actor_sets TO tally_writer;
GRANT SELECT ON tally.daily_actor_sets, tally.daily_actors TO tally_reader;
