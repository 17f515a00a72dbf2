"""Consent through episode-demo's real outbox and uploader, against a live
`tally serve` with PostgreSQL behind the test proxy: under pending nothing is uploaded (the proxy,
hence the collector, sees no request), after grant everything held is, after denial nothing is and
the outbox is empty, and the choice is remembered in the outbox directory across launches."""
import json

from conftest import assert_exactly_once, batch_files, count, ids_in

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]
# A held run's graceful end: the uploader sends nothing, so there is nothing to wait for.
HELD = [*FAST, "--flush-timeout", "1"]


def remembered(outbox) -> str:
    return json.loads((outbox / "consent.json").read_text())["consent"]


def stored(database) -> int:
    return count(database, "SELECT count(*) FROM tally.events")


def test_pending_holds_everything_until_granted(proxy, collector, database, outbox, demos):
    held = demos(proxy.url, collector.key, outbox, "--visits", "60", "--consent", "pending", *HELD).wait()
    print(held)
    assert held["consent"] == "pending" and remembered(outbox) == "pending"
    assert held["tracked"] == held["written"] > 0 and held["dropped"] == 0
    assert held["uploaded"] == 0 and held["outbox"]["waiting"] == held["written"]
    waiting = ids_in(batch_files(outbox))
    assert len(waiting) == held["written"]
    # The next launch remembers it without the flag, like an app's settings: still nothing sent.
    again = demos(proxy.url, collector.key, outbox, "--visits", "20", *HELD).wait()
    assert again["consent"] == "pending" and again["uploaded"] == 0
    assert proxy.requests == [], f"a request left the device under pending consent:\n{proxy.describe()}"
    assert stored(database) == 0
    # Granted: what was held goes, with this run's events, each once.
    granted = demos(proxy.url, collector.key, outbox, "--visits", "20", "--consent", "granted", *FAST).wait()
    print(granted)
    total = held["tracked"] + again["tracked"] + granted["tracked"]
    assert remembered(outbox) == "granted"
    assert granted["outbox"]["waiting"] == 0 and granted["outbox"]["uploaded"] == granted["outbox"]["written"] == total
    ids = assert_exactly_once(database)
    assert len(ids) == total and set(waiting) <= set(ids)
    assert proxy.requests and all(record.succeeded for record in proxy.requests), proxy.describe()


def test_denial_deletes_what_was_held_and_is_remembered(proxy, collector, database, outbox, demos):
    held = demos(proxy.url, collector.key, outbox, "--visits", "40", "--consent", "pending", *HELD).wait()
    assert held["outbox"]["waiting"] == held["written"] > 0
    denied = demos(proxy.url, collector.key, outbox, "--visits", "40", "--consent", "denied", *HELD).wait()
    print(denied)
    assert denied["consent"] == "denied" and remembered(outbox) == "denied"
    # Nothing of this run reached the disk; what was held is deleted (counted as purged, not lost).
    assert denied["written"] == 0 and denied["dropped"] == 0
    assert denied["discarded_no_consent"] == denied["tracked"] > 0
    assert denied["outbox"]["waiting"] == 0 and denied["outbox"]["purged"] == held["written"]
    assert denied["outbox"]["written"] == held["written"]
    assert batch_files(outbox) == []
    # The opt-out is remembered: a launch without the flag keeps nothing either.
    later = demos(proxy.url, collector.key, outbox, "--visits", "40", *HELD).wait()
    assert later["consent"] == "denied" and later["written"] == 0
    assert later["discarded_no_consent"] == later["tracked"] > 0
    assert batch_files(outbox) == [] and remembered(outbox) == "denied"
    # No event of any run is left anywhere in the outbox directory, nor reached the collector.
    assert not [path for path in outbox.rglob("*.ndjson")], list(outbox.rglob("*"))
    assert proxy.requests == [], proxy.describe()
    assert stored(database) == 0


def test_opting_out_while_the_collector_is_down_empties_the_outbox(proxy, collector, database, outbox, demos):
    # Granted, but nothing gets through: the events wait in the outbox.
    proxy.answer(1000, 503)
    waiting = demos(proxy.url, collector.key, outbox, "--visits", "40", *HELD).wait()
    assert waiting["consent"] == "granted" and waiting["outbox"]["waiting"] == waiting["written"] > 0
    # The user opts out; the collector comes back: nothing is sent, the outbox is empty.
    proxy.pass_through()
    sent_before = len(proxy.requests)
    denied = demos(proxy.url, collector.key, outbox, "--visits", "10", "--consent", "denied", *HELD).wait()
    assert denied["outbox"]["waiting"] == 0 and denied["outbox"]["purged"] == waiting["written"]
    assert batch_files(outbox) == []
    assert len(proxy.requests) == sent_before, proxy.describe()
    assert stored(database) == 0
