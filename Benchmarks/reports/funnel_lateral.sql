-- Baseline: the same funnel as chained LEFT JOIN LATERALs: from each step-1 event in the range, the
-- earliest step-2 event at or after it within the window, then the earliest step-3 event after
-- that, and so on (the earliest next event is always the best choice for an ordered funnel); an
-- actor reaches the furthest step any of its step-1 events leads to. Index lookups on
-- bench.actor_events (funnel_setup.sql); without identity merging.
SELECT count(*) FILTER (WHERE reach >= 1) AS step1, count(*) FILTER (WHERE reach >= 2) AS step2,
       count(*) FILTER (WHERE reach >= 3) AS step3, count(*) FILTER (WHERE reach >= 4) AS step4
FROM (
    SELECT e1.actor, max(CASE WHEN s4.t IS NOT NULL THEN 4 WHEN s3.t IS NOT NULL THEN 3
                              WHEN s2.t IS NOT NULL THEN 2 ELSE 1 END) AS reach
    FROM bench.actor_events e1
    LEFT JOIN LATERAL (
        SELECT min(e.occurred_at) AS t FROM bench.actor_events e
        WHERE e.actor = e1.actor AND e.name = :'step2'
          AND e.occurred_at >= e1.occurred_at AND e.occurred_at <= e1.occurred_at + interval '7 days'
    ) s2 ON true
    LEFT JOIN LATERAL (
        SELECT min(e.occurred_at) AS t FROM bench.actor_events e
        WHERE s2.t IS NOT NULL AND e.actor = e1.actor AND e.name = :'step3'
          AND e.occurred_at >= s2.t AND e.occurred_at <= e1.occurred_at + interval '7 days'
    ) s3 ON true
    LEFT JOIN LATERAL (
        SELECT min(e.occurred_at) AS t FROM bench.actor_events e
        WHERE s3.t IS NOT NULL AND e.actor = e1.actor AND e.name = :'step4'
          AND e.occurred_at >= s3.t AND e.occurred_at <= e1.occurred_at + interval '7 days'
    ) s4 ON true
    WHERE e1.name = :'step1' AND e1.occurred_at >= :'since'::timestamptz AND e1.occurred_at < :'until'::timestamptz
    GROUP BY e1.actor
) reaches;
