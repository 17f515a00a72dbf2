-- tally 0013: an index of the events by name and time, holding what reports read per event.
-- Funnels and retention read, per event of a few names in a range, its actor, time and sampling:
-- an index-only scan of this index reads those (a third of the table's bytes) instead of every
-- row, which took 40 % less of the server's CPU on 10M events (scripts/bench.sh --part reports).
-- New monthly partitions get it with their creation. Building it on a large table blocks writes
-- meanwhile (about 30 s per 10M events on 2 cores); index-only scans need the visibility map,
-- which autovacuum keeps for insert-only tables.
CREATE INDEX IF NOT EXISTS events_name_time ON tally.events (name, occurred_at) INCLUDE (user_id, anonymous_id, sample_rate);
