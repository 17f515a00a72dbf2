-- tally 0009: events sampled on the device (a tracking plan's x-tally-sample-rate).
-- Idempotent. A sampled event carries the share of users whose events of its kind the device
-- sent (`sample_rate`, 0 < rate < 1); it stands for 1 / rate events in estimated totals. The
-- stored counts stay what was stored: estimates are columns of their own, never mixed in.

ALTER TABLE tally.events ADD COLUMN IF NOT EXISTS sample_rate double precision;

-- What the sampling left out, estimated: the sum over the stored events of (1 / sample_rate - 1).
-- The estimated total of a row is events + unsampled_estimate. Zero for unsampled events, so rows
-- written before this migration (or by a loader that predates it) are already right.
ALTER TABLE tally.rollup_hourly ADD COLUMN IF NOT EXISTS unsampled_estimate double precision NOT NULL DEFAULT 0;

COMMENT ON COLUMN tally.events.sample_rate IS 'the share of users whose events of this kind the device sent (0 < rate < 1); NULL when not sampled. The event stands for 1 / sample_rate events.';
COMMENT ON COLUMN tally.rollup_hourly.unsampled_estimate IS 'sum of (1 / sample_rate - 1) over the stored events: events + unsampled_estimate is the estimated total.';

-- The report views gain the estimated total, after their existing columns.
CREATE OR REPLACE VIEW tally.feature_summary AS
SELECT feature, sum(events)::bigint AS events, count(DISTINCT name) AS event_types,
       min(first_seen) AS first_seen, max(last_seen) AS last_seen,
       sum(events + unsampled_estimate) AS estimated_events
FROM tally.rollup_hourly GROUP BY feature;

CREATE OR REPLACE VIEW tally.event_summary AS
SELECT feature, name, sum(events)::bigint AS events, min(first_seen) AS first_seen, max(last_seen) AS last_seen,
       sum(events + unsampled_estimate) AS estimated_events
FROM tally.rollup_hourly GROUP BY feature, name;

CREATE OR REPLACE VIEW tally.daily_activity AS
SELECT (hour AT TIME ZONE 'UTC')::date AS day, feature, sum(events)::bigint AS events,
       sum(events + unsampled_estimate) AS estimated_events
FROM tally.rollup_hourly GROUP BY 1, 2;
