-- Baseline: a 4-step ordered funnel with a 7-day window, by hand: each actor's step events in time
-- order (array_agg over the index-only scan of bench.actor_events) through a PL/pgSQL state
-- machine (bench.funnel_reach, funnel_setup.sql); actors reaching each step, without identity
-- merging. psql variables: since, until, step1 … step4.
SELECT count(*) FILTER (WHERE reach >= 1) AS step1, count(*) FILTER (WHERE reach >= 2) AS step2,
       count(*) FILTER (WHERE reach >= 3) AS step3, count(*) FILTER (WHERE reach >= 4) AS step4
FROM (
    SELECT bench.funnel_reach(array_agg(occurred_at ORDER BY occurred_at), array_agg(name ORDER BY occurred_at),
                              ARRAY[:'step1', :'step2', :'step3', :'step4'], interval '7 days',
                              :'since'::timestamptz, :'until'::timestamptz) AS reach
    FROM bench.actor_events
    WHERE occurred_at >= :'since'::timestamptz AND occurred_at < :'until'::timestamptz + interval '7 days'
      AND name IN (:'step1', :'step2', :'step3', :'step4')
    GROUP BY actor
) reaches;
