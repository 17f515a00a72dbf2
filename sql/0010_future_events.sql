-- tally 0010: events from the future.
-- Idempotent. An event dated more than 24 hours after its receipt (a device whose clock is wrong)
-- is placed at its corrected time, else at its receipt, and keeps the device's time in
-- device_occurred_at. A re-send of it arrives at another moment and would be placed elsewhere, a
-- second row under another occurred_at: tally.skewed_events keeps the first placement of each
-- event id, and every loader gives later copies that same occurred_at, so they stay duplicates.
-- Keyed by event_id alone: a reference table under Citus (few rows, read by id).

ALTER TABLE tally.events ADD COLUMN IF NOT EXISTS device_occurred_at timestamptz;
ALTER TABLE tally.identities ADD COLUMN IF NOT EXISTS device_occurred_at timestamptz;

COMMENT ON COLUMN tally.events.device_occurred_at IS 'the device''s own time of an event dated more than 24 hours after its receipt, which occurred_at replaces; NULL for every other event.';
COMMENT ON COLUMN tally.identities.device_occurred_at IS 'the device''s own time of a record dated more than 24 hours after its receipt; NULL otherwise.';

CREATE TABLE IF NOT EXISTS tally.skewed_events (
    event_id            uuid        PRIMARY KEY,
    occurred_at         timestamptz NOT NULL,
    device_occurred_at  timestamptz NOT NULL,
    placed_at           timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE tally.skewed_events IS 'The first placement of each event from the future: every copy of the event is stored at this occurred_at.';

GRANT SELECT, INSERT ON tally.skewed_events TO tally_writer;
GRANT SELECT ON tally.skewed_events TO tally_reader;
