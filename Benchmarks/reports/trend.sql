-- Baseline: a daily count of one event from the raw events, in UTC (the trend tally answers from
-- tally.rollup_hourly). psql variables: since, until, event.
SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, count(*)
FROM tally.events
WHERE name = :'event' AND occurred_at >= :'since'::timestamptz AND occurred_at < :'until'::timestamptz
GROUP BY 1 ORDER BY 1;
