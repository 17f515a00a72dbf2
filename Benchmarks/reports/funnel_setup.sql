-- The hand-written funnel baselines' own table and function, made once before the rounds (not
-- timed): the actors' events narrowed to (actor, occurred_at, name), with the index the
-- baselines read, an index-only scan of (actor, occurred_at) INCLUDE (name), vacuumed so that
-- the visibility map allows it. tally reads tally.events itself; the baselines get this head start.
CREATE SCHEMA IF NOT EXISTS bench;
DROP TABLE IF EXISTS bench.actor_events;
CREATE TABLE bench.actor_events AS
SELECT coalesce(user_id, anonymous_id) AS actor, occurred_at, name
FROM tally.events WHERE coalesce(user_id, anonymous_id) IS NOT NULL;
CREATE INDEX actor_events_actor_time ON bench.actor_events (actor, occurred_at) INCLUDE (name);
VACUUM ANALYZE bench.actor_events;

-- An ordered funnel's furthest step for one actor, from its events in time order: per step the
-- latest start of a chain that reached it (a later start leaves the most of the window), each
-- event extending the chains of the step before its own, visited from the last step so that an
-- event extends only chains made before it. Exact for funnels whose steps are distinct names.
CREATE OR REPLACE FUNCTION bench.funnel_reach(
    times timestamptz[], names text[], steps text[], win interval, since timestamptz, until timestamptz
) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    n int := array_length(steps, 1);
    starts timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
    best int := 0;
    t timestamptz;
    name text;
BEGIN
    FOR i IN 1 .. array_length(times, 1) LOOP
        t := times[i];
        name := names[i];
        FOR j IN REVERSE n .. 2 LOOP
            IF name = steps[j] AND starts[j - 1] IS NOT NULL AND t - starts[j - 1] <= win THEN
                IF starts[j] IS NULL OR starts[j - 1] > starts[j] THEN starts[j] := starts[j - 1]; END IF;
                IF j > best THEN best := j; END IF;
            END IF;
        END LOOP;
        IF name = steps[1] AND t >= since AND t < until THEN
            starts[1] := t;
            IF best < 1 THEN best := 1; END IF;
        END IF;
    END LOOP;
    RETURN best;
END;
$$;
