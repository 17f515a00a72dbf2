-- tally 0007: events from other sources (Segment, PostHog) and their identity calls.
-- Idempotent. Citus-compatible: the identities' unique key holds occurred_at, like the events'.

-- The id an event was sent with when it was not a UUID (a Segment messageId, a hash); event_id
-- is then its name-based UUID (version 5, namespace f105c21a-08e0-5751-8548-82d7eca2ad03).
ALTER TABLE tally.events ADD COLUMN IF NOT EXISTS source_id text;

-- identify / group / alias calls: who a user is, which group they belong to, which ids are one
-- user. Stored apart from events and never counted as events; deduplicated by event_id like them.
CREATE TABLE IF NOT EXISTS tally.identities (
    event_id      uuid        NOT NULL,
    occurred_at   timestamptz NOT NULL,
    type          text        NOT NULL CHECK (type IN ('identify', 'group', 'alias')),
    name          text        NOT NULL,
    user_id       text,
    anonymous_id  text,
    group_id      text,
    previous_id   text,
    traits        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    context       jsonb,
    sent_at       timestamptz,
    received_at   timestamptz,
    source_id     text,
    PRIMARY KEY (event_id, occurred_at)
);
CREATE INDEX IF NOT EXISTS identities_user_id ON tally.identities (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS identities_anonymous_id ON tally.identities (anonymous_id) WHERE anonymous_id IS NOT NULL;

COMMENT ON TABLE tally.identities IS 'identify, group and alias calls (Segment spec; PostHog $identify, $groupidentify, $create_alias), one row per call, deduplicated by event_id.';

GRANT INSERT ON tally.identities TO tally_writer;
GRANT SELECT (event_id, occurred_at) ON tally.identities TO tally_writer;  -- ON CONFLICT reads the key
GRANT SELECT ON tally.identities TO tally_reader;
