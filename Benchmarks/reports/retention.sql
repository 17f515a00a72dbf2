-- Baseline: daily first-time retention from the raw events, in UTC: each actor's first-ever start
-- event gives its cohort (when in the range), and a cohort's offset k counts its actors with a
-- return event on day cohort + k (k = 1 … periods, before until); offset 0 is the cohort's size.
-- Without identity merging. psql variables: since, until, periods, start, return.
WITH firsts AS (
    SELECT coalesce(user_id, anonymous_id) AS actor, min(occurred_at) AS first
    FROM tally.events
    WHERE name = :'start' AND occurred_at < :'until'::timestamptz AND coalesce(user_id, anonymous_id) IS NOT NULL
    GROUP BY 1
), cohorts AS (
    SELECT actor, (first AT TIME ZONE 'UTC')::date AS day FROM firsts WHERE first >= :'since'::timestamptz
), returns AS (
    SELECT DISTINCT coalesce(user_id, anonymous_id) AS actor, (occurred_at AT TIME ZONE 'UTC')::date AS day
    FROM tally.events
    WHERE name = :'return' AND occurred_at >= :'since'::timestamptz AND occurred_at < :'until'::timestamptz
)
SELECT day, 0 AS period, count(*) FROM cohorts GROUP BY day
UNION ALL
SELECT c.day, r.day - c.day, count(*)
FROM cohorts c JOIN returns r ON r.actor = c.actor AND r.day > c.day AND r.day <= c.day + :periods
GROUP BY 1, 2
ORDER BY 1, 2;
