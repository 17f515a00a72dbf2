"""The app SDK's identity, context, super properties and enrichment hooks, through the real outbox
and uploader (episode-demo in app mode) into a live `tally serve` with PostgreSQL: the identify
record lands in tally.identities and later events carry the user; every event carries the context
and the super properties (its own property winning); a hook's change arrives and its drops are
counted and reported; the identity survives a relaunch and a reset (logout) replaces it."""
import pytest

from conftest import count, query, reported

RUN = ["--visits", "20", "--super-property", "plan_tier=gold", "--super-property", "position=-1",
       "--enrich", "build_flavor=beta", "--drop-event", "episode_list_viewed"]


def events(url: str) -> list[dict]:
    rows = query(url, "SELECT name, properties, user_id, anonymous_id, context, occurred_at FROM tally.events "
                      "WHERE name <> 'outbox_diagnostics' ORDER BY occurred_at")
    return [dict(zip(("name", "properties", "user_id", "anonymous_id", "context", "occurred_at"), row))
            for row in rows]


def test_identity_context_super_properties_and_hooks(start_collector, database, outbox, demos):
    # No tracking plan at the collector: the demo's super properties and enrichments are not in
    # the Examples' plans (an app declares them in its own).
    collector = start_collector()
    first = demos(collector.url, collector.key, outbox, *RUN, "--login-after", "10").wait()
    print(first)
    assert first["dropped"] == 0 and first["outbox"]["waiting"] == 0
    # Every visit's list view was dropped by the hook: counted, and reported to the server.
    assert first["dropped_by_hooks"] == 20 and first["outbox"]["dropped_by_hooks"] == 20
    assert reported(database, "dropped_by_hooks") == 20
    assert first["user_id"] == "demo-user" and first["anonymous_id"]

    identities = query(database, "SELECT type, user_id, anonymous_id, traits, context, occurred_at "
                                 "FROM tally.identities")
    assert len(identities) == 1, identities
    kind, user_id, anonymous_id, traits, context, identified_at = identities[0]
    assert (kind, user_id, anonymous_id, traits) == ("identify", "demo-user", first["anonymous_id"],
                                                      {"plan": "premium"})
    assert context["library"]["name"] == "tally"

    stored = events(database)
    assert stored and len(stored) == first["written"] - 1  # the identify record is not an event
    assert {event["name"] for event in stored} == {"episode_list_episode_selected"}
    for event in stored:
        assert event["anonymous_id"] == first["anonymous_id"]
        assert event["user_id"] == ("demo-user" if event["occurred_at"] > identified_at else None), event
        properties, context = event["properties"], event["context"]
        assert properties["plan_tier"] == "gold" and properties["build_flavor"] == "beta"
        assert isinstance(properties["position"], int), "the event's own property wins over the super property"
        assert (context["app"]["name"], context["app"]["version"], context["app"]["build"]) == (
            "episode-demo", "1.0.0", "1")
        assert context["app_version"] == "1.0.0" and context["platform"] == "linux"
        assert context["os"]["name"] == "Linux" and context["os"]["version"]
        assert context["device"]["model"] and context["library"] == {"name": "tally", "version": "0.1.0"}
        assert context["timezone"] and context["locale"]
        assert "\u0001" not in str(context), "the super properties' carrier reached the server"
    assert any(event["user_id"] is None for event in stored) and any(event["user_id"] for event in stored)

    # A relaunch keeps the install's ids; a logout (reset) halfway replaces them.
    second = demos(collector.url, collector.key, outbox, *RUN, "--visits", "6", "--logout-after", "3").wait()
    print(second)
    assert second["user_id"] is None and second["anonymous_id"] != first["anonymous_id"]
    later = events(database)[len(stored):]
    ids = [(event["user_id"], event["anonymous_id"]) for event in later]
    assert ids[0] == ("demo-user", first["anonymous_id"]) and ids[-1] == (None, second["anonymous_id"]), ids
    assert ids == sorted(ids, key=lambda pair: pair[0] is None), "the identity changed once, at the logout"
    assert count(database, "SELECT count(*) FROM tally.identities") == 1, "a reset sends no record"
    assert count(database, "SELECT count(*) FROM tally.failed_events") == 0


@pytest.mark.parametrize("wire", ["tally", "segment"])
def test_events_the_collector_refuses_are_counted_apart(wire, collector, database, outbox, demos):
    # The Examples' plans do not declare `build_flavor`: the collector refuses each enriched event
    # in its 200 reply (and keeps it in tally.failed_events); on Segment's wire its reply lists
    # them beside `"success":true`. The client counts them apart from the stored ones instead of
    # as plainly uploaded.
    segment = ["--segment"] if wire == "segment" else []
    result = demos(collector.url, collector.key, outbox, "--visits", "5", "--enrich", "build_flavor=beta",
                   *segment).wait()
    print(result)
    refused = count(database, "SELECT count(*) FROM tally.failed_events")
    stored = count(database, "SELECT count(*) FROM tally.events WHERE name <> 'outbox_diagnostics'")
    assert refused > 0 and result["rejected_by_collector"] == refused
    assert stored + refused == result["written"] and result["outbox"]["waiting"] == 0
