-- tally 0006: compress the per-day user arrays with lz4 instead of pglz. Measured with sparse users
-- (200,000 events, 100,000 users: nearly every event a new user-day): the rollup statement's server
-- time 106–116 ms → 32–40 ms, for 30 % more space. Rows already written keep their compression.
-- A server built without lz4 (or before PostgreSQL 14) keeps pglz: the statement runs through
-- EXECUTE so that its error can be caught.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE tally.daily_actor_sets ALTER COLUMN actors SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
    RAISE NOTICE 'lz4 is not available on this server: tally.daily_actor_sets stays pglz-compressed';
END;
$$;
