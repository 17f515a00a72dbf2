-- The writer needs no read access to the per-day user sets: its inserts use ON CONFLICT DO
-- NOTHING without RETURNING of their columns. Only the event key stays readable (RETURNING it
-- is how a re-run counts the rows it actually inserted).
REVOKE SELECT (day, feature, actor) ON tally.daily_actors FROM tally_writer;
