-- tally 0008: the collector's clock-corrected time.
-- Idempotent. With a client's sent_at, `tally serve` (and ingest, from the envelope's own times)
-- stores received_at − (sent_at − occurred_at) beside the device's occurred_at, which stays as
-- sent: a device whose clock is wrong still gets its events placed near when they happened, and a
-- re-send (same occurred_at, new sent_at) is still the same event. NULL without sent_at.

ALTER TABLE tally.events ADD COLUMN IF NOT EXISTS corrected_at timestamptz;
ALTER TABLE tally.identities ADD COLUMN IF NOT EXISTS corrected_at timestamptz;

COMMENT ON COLUMN tally.events.corrected_at IS 'received_at - (sent_at - occurred_at): occurred_at corrected for the device clock (Segment''s timestamp rule); NULL without sent_at.';
COMMENT ON COLUMN tally.identities.corrected_at IS 'received_at - (sent_at - occurred_at); NULL without sent_at.';
