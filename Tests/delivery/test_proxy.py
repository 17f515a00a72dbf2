"""The test proxy alone, against a real collector: each behaviour the delivery tests rely on does
what it says, and the record tells what happened (so a failing delivery test blames the uploader,
not its harness)."""
import gzip
import http.client
import json
import threading
import time
import uuid

import pytest

from conftest import count, envelope, ndjson_gzip
from http_util import post
from proxy import overlapping, resends


def event(**extra) -> dict:
    """An envelope the Examples' plan accepts (episode_list_viewed has no properties)."""
    return envelope(properties={}, **extra)


def send(proxy, collector, events: list[dict]):
    return post(proxy.url, "/v1/events", ndjson_gzip(events),
                {"Content-Encoding": "gzip", "Content-Type": "application/x-ndjson", **collector.auth()})


def test_pass_through_records_ids_and_bytes(proxy, collector, database):
    events = [event() for _ in range(3)]
    body = ndjson_gzip(events)
    reply = send(proxy, collector, events)
    assert reply.status == 200, reply.body
    assert reply.json()["accepted"] == 3
    assert count(database) == 3
    [record] = proxy.requests
    assert record.event_ids == [event["event_id"] for event in events]
    assert record.bytes == len(body) and record.inflated_bytes == len(gzip.decompress(body))
    assert (record.status, record.answered_by, record.forwarded) == (200, "collector", True)
    assert record.end is not None and record.end >= record.start


def test_segment_batch_ids(proxy, collector):
    message_id = str(uuid.uuid4())
    body = gzip.compress(json.dumps({"batch": [{"type": "track", "event": "Played", "messageId": message_id,
                                                "anonymousId": "a", "timestamp": "2026-11-20T10:00:00Z"}],
                                     "sentAt": "2026-11-20T10:00:01Z"}).encode())
    reply = post(proxy.url, "/v1/batch", body, {"Content-Encoding": "gzip", "Content-Type": "application/json",
                                                 **collector.auth()})
    assert reply.status == 200, reply.body
    assert proxy.requests[0].event_ids == [message_id]
    assert proxy.requests[0].names == ["Played"]


def test_413_over_n_bytes(proxy, collector, database):
    small, large = [event()], [envelope(properties={"text": uuid.uuid4().hex * 50}) for _ in range(20)]
    proxy.reject_over(len(ndjson_gzip(small)) + 10)
    assert send(proxy, collector, large).status == 413
    assert send(proxy, collector, small).status == 200
    assert count(database) == 1
    assert [record.status for record in proxy.requests] == [413, 200]


def test_429_with_retry_after_then_500_then_through(proxy, collector, database):
    proxy.throttle(2, retry_after=7)
    proxy.answer(1, 500)
    replies = [send(proxy, collector, [event()]) for _ in range(4)]
    assert [reply.status for reply in replies] == [429, 429, 500, 200]
    assert replies[0].headers["retry-after"] == "7"
    assert count(database) == 1


def test_reset_before_and_after_forwarding(proxy, collector, database):
    proxy.reset(1)
    proxy.reset(1, after_forward=True)
    for _ in range(2):
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            send(proxy, collector, [event()])
    assert count(database) == 1  # only the one reset after the collector stored it
    assert [(record.status, record.forwarded) for record in proxy.requests] == [("reset", False), ("reset", True)]
    assert send(proxy, collector, [event()]).status == 200


def test_slow_requests_overlap_and_resends_are_found(proxy, collector, database):
    proxy.slow(0.5)
    events = [event()]
    replies = []
    threads = [threading.Thread(target=lambda: replies.append(send(proxy, collector, events))) for _ in range(2)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.monotonic() - started >= 0.5
    assert [reply.status for reply in replies] == [200, 200]
    assert count(database) == 1
    assert len(overlapping(proxy.requests)) == 1
    assert len(resends(proxy.requests)) == 1


def test_no_collector_resets(proxy, collector):
    collector.kill()
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        send(proxy, collector, [event()])
    assert proxy.requests[0].status == "unreachable"


def test_a_client_that_gave_up_is_recorded(proxy, collector, database):
    proxy.slow(0.6)
    with pytest.raises(TimeoutError):
        post(proxy.url, "/v1/events", ndjson_gzip([event()]),
             {"Content-Encoding": "gzip", **collector.auth()}, timeout=0.2)
    proxy.wait_for(lambda p: p.in_flight() == 0, 5, "the stalled request forwarded")
    [record] = proxy.requests
    assert record.forwarded and record.client_gone
    assert count(database) == 1
