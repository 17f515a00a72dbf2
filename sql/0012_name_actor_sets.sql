-- tally 0012: the actors of each UTC day by event name, as tally.daily_actor_sets holds them by
-- feature: one row per (day, name) and loaded batch, `actors` the distinct user_id (else
-- anonymous_id) of the batch's events of that name and day, `sampled` whether one of those events
-- carried a sample rate. Kept exact by the loader in the events' own transaction; an actor
-- repeated across rows counts once (DISTINCT). Reports read it for retention over UTC days, weeks
-- and months (an actor's first start day, its return days) instead of the events.
-- Idempotent; on a database that already holds events, the table is filled from them once.
DO $$
BEGIN
    IF to_regclass('tally.daily_name_actor_sets') IS NULL THEN
        CREATE TABLE tally.daily_name_actor_sets (
            day     date    NOT NULL,
            name    text    NOT NULL,
            actors  text[]  NOT NULL,
            sampled boolean NOT NULL DEFAULT false
        );
        -- lz4 as 0006 chose for daily_actor_sets, where the server has it.
        BEGIN
            EXECUTE 'ALTER TABLE tally.daily_name_actor_sets ALTER COLUMN actors SET COMPRESSION lz4';
        EXCEPTION WHEN feature_not_supported OR syntax_error THEN
            NULL;
        END;
        INSERT INTO tally.daily_name_actor_sets (day, name, actors, sampled)
        SELECT (occurred_at AT TIME ZONE 'UTC')::date, name, array_agg(DISTINCT coalesce(user_id, anonymous_id)),
               bool_or(sample_rate IS NOT NULL)
        FROM tally.events WHERE coalesce(user_id, anonymous_id) IS NOT NULL
        GROUP BY 1, 2;
    END IF;
END;
$$;
CREATE INDEX IF NOT EXISTS daily_name_actor_sets_name_day ON tally.daily_name_actor_sets (name, day);

COMMENT ON TABLE tally.daily_name_actor_sets IS 'Distinct actors per UTC day and event name, one row per loaded batch (count DISTINCT over unnest(actors)); sampled: a sampled event is among them.';

GRANT INSERT ON tally.daily_name_actor_sets TO tally_writer;
GRANT SELECT ON tally.daily_name_actor_sets TO tally_reader;
