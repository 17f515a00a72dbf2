-- tally 0002: least-privilege roles. Group roles (NOLOGIN): grant them to login users, e.g.
--   CREATE ROLE ingest_worker LOGIN PASSWORD '…' IN ROLE tally_writer;
-- tally_writer loads events: INSERT only, plus UPDATE on the rollups (exact counts need it);
-- never DELETE, TRUNCATE or DDL. tally_reader can only SELECT. DDL stays with the owner that runs
-- `tally migrate`. Idempotent.

-- Roles are cluster-wide: migrations of two databases may create them at the same moment.
DO $$
BEGIN
    -- Checked first: an owner without CREATEROLE (deploy/postgres creates the group roles) must
    -- not even attempt it.
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tally_writer') THEN
        CREATE ROLE tally_writer NOLOGIN;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL;
END;
$$;
DO $$
BEGIN
    -- Checked first: an owner without CREATEROLE (deploy/postgres creates the group roles) must
    -- not even attempt it.
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tally_reader') THEN
        CREATE ROLE tally_reader NOLOGIN;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL;
END;
$$;

-- Partitions are created on demand by the loader, as the owner.
ALTER FUNCTION tally.ensure_partitions(date, date) SECURITY DEFINER SET search_path = pg_catalog, tally;
REVOKE ALL ON FUNCTION tally.ensure_partitions(date, date) FROM PUBLIC;

GRANT USAGE ON SCHEMA tally TO tally_writer, tally_reader;
GRANT EXECUTE ON FUNCTION tally.ensure_partitions(date, date) TO tally_writer;
GRANT INSERT ON tally.events, tally.failed_events, tally.daily_actors TO tally_writer;
GRANT SELECT (event_id, occurred_at) ON tally.events TO tally_writer;  -- ON CONFLICT reads the key
GRANT SELECT, INSERT, UPDATE ON tally.rollup_hourly TO tally_writer;
GRANT SELECT (day, feature, actor) ON tally.daily_actors TO tally_writer;

GRANT SELECT ON ALL TABLES IN SCHEMA tally TO tally_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA tally GRANT SELECT ON TABLES TO tally_reader;
