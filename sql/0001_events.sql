-- tally 0001: the events table, its dead letters, rollups and per-day distinct users.
-- Idempotent: every statement can run again. Applied by `tally migrate`, which records it.
-- Citus-compatible: every unique key holds the distribution column (occurred_at / day / hour),
-- and there are no foreign keys between these tables.

CREATE SCHEMA IF NOT EXISTS tally;

CREATE TABLE IF NOT EXISTS tally.events (
    event_id        uuid        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    name            text        NOT NULL,
    feature         text        NOT NULL,
    properties      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    sent_at         timestamptz,
    received_at     timestamptz,
    user_id         text,
    anonymous_id    text,
    session_id      text,
    context         jsonb,
    schema_version  text,
    violations      jsonb,
    PRIMARY KEY (event_id, occurred_at)
) PARTITION BY RANGE (occurred_at);

COMMENT ON TABLE tally.events IS 'One row per event (deduplicated by event_id); monthly partitions by occurred_at, created on demand.';

-- Creates the monthly partitions covering [first_day, last_day]; safe to call concurrently.
CREATE OR REPLACE FUNCTION tally.ensure_partitions(first_day date, last_day date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    month date := date_trunc('month', first_day)::date;
    partition_name text;
BEGIN
    WHILE month <= last_day LOOP
        partition_name := format('events_%s', to_char(month, 'YYYY_MM'));
        IF to_regclass(format('tally.%I', partition_name)) IS NULL THEN
            BEGIN
                EXECUTE format(
                    'CREATE TABLE tally.%I PARTITION OF tally.events FOR VALUES FROM (%L) TO (%L)',
                    partition_name, month::timestamptz, (month + interval '1 month')::timestamptz
                );
            EXCEPTION WHEN duplicate_table THEN
                NULL; -- another writer created it first
            END;
        END IF;
        month := (month + interval '1 month')::date;
    END LOOP;
END;
$$;

-- Events a sink could not store, with the reason; `event` is the NDJSON line (text, so that
-- anything, NUL escapes included, fits).
CREATE TABLE IF NOT EXISTS tally.failed_events (
    failed_at   timestamptz NOT NULL DEFAULT now(),
    event_id    uuid,
    reason      text        NOT NULL,
    detail      text,
    event       text        NOT NULL
);
CREATE INDEX IF NOT EXISTS failed_events_failed_at ON tally.failed_events (failed_at);

-- Hourly counts by feature and event, kept exact by the loader (only rows actually inserted count).
CREATE TABLE IF NOT EXISTS tally.rollup_hourly (
    hour        timestamptz NOT NULL,
    feature     text        NOT NULL,
    name        text        NOT NULL,
    events      bigint      NOT NULL,
    first_seen  timestamptz NOT NULL,
    last_seen   timestamptz NOT NULL,
    PRIMARY KEY (hour, feature, name)
);

-- Distinct users per day and feature (user_id, else anonymous_id): unique users over any range of
-- days is an exact count(DISTINCT actor) over this table, far smaller than the events.
CREATE TABLE IF NOT EXISTS tally.daily_actors (
    day      date NOT NULL,
    feature  text NOT NULL,
    actor    text NOT NULL,
    PRIMARY KEY (day, feature, actor)
);

CREATE OR REPLACE VIEW tally.feature_summary AS
SELECT feature, sum(events)::bigint AS events, count(DISTINCT name) AS event_types,
       min(first_seen) AS first_seen, max(last_seen) AS last_seen
FROM tally.rollup_hourly GROUP BY feature;

CREATE OR REPLACE VIEW tally.event_summary AS
SELECT feature, name, sum(events)::bigint AS events, min(first_seen) AS first_seen, max(last_seen) AS last_seen
FROM tally.rollup_hourly GROUP BY feature, name;

CREATE OR REPLACE VIEW tally.daily_activity AS
SELECT (hour AT TIME ZONE 'UTC')::date AS day, feature, sum(events)::bigint AS events
FROM tally.rollup_hourly GROUP BY 1, 2;
