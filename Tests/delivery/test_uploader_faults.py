"""The uploader against a collector behind the test proxy that answers 413, 429 with
`Retry-After`, 500, 400/401, resets the connection or stalls: each handled as the contract says
(halve, wait as asked, back off and retry, dead-letter), every event stored once."""
import pytest

from conftest import assert_exactly_once, batch_files, diagnostics, ids_in, refused_endpoint, reported
from proxy import overlapping, resends

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]


def run(demos, proxy, collector, outbox, *arguments: str) -> dict:
    result = demos(proxy.url, collector.key, outbox, *arguments, run_id="faults").wait(90)
    print(result)
    print(proxy.describe(60))
    return result


def check_all_arrived(database, proxy, result: dict) -> list[str]:
    ids = assert_exactly_once(database)
    assert result["dropped"] == 0 and result["dead_lettered"] == 0
    assert result["tracked"] == result["written"] == len(ids)
    assert result["outbox"]["waiting"] == 0
    assert not overlapping(proxy.requests), proxy.describe()
    return ids


def gaps(records) -> list[float]:
    """Seconds from each request's end to the next one's start."""
    return [later.start - earlier.end for earlier, later in zip(records, records[1:])]


def test_413_halves_the_batch(proxy, collector, database, outbox, demos):
    limit = 6000
    proxy.reject_over(limit)
    result = run(demos, proxy, collector, outbox, "--visits", "400", *FAST)
    ids = check_all_arrived(database, proxy, result)
    requests = proxy.requests
    refused = [index for index, record in enumerate(requests) if record.status == 413]
    assert refused, "no request was over the limit: the test did not test halving"
    for index in refused:
        too_large = requests[index]
        # The next request with any of the refused one's events carries half of them or less. (Not
        # necessarily the very next request: a batch split on disk after a 413 takes new sequence
        # numbers, so a batch written meanwhile may go first.)
        following = next((record for record in requests[index + 1:]
                          if set(record.event_ids) & set(too_large.event_ids)), None)
        assert following is not None, proxy.describe()
        assert 0 < len(following.event_ids) <= (len(too_large.event_ids) + 1) // 2, proxy.describe()
    assert all(record.bytes <= limit for record in requests if record.succeeded)
    assert set(ids) == {event_id for record in requests if record.succeeded for event_id in record.event_ids}


def test_429_retry_after_is_honoured(proxy, collector, database, outbox, demos):
    retry_after = 2
    proxy.throttle(2, retry_after=retry_after)
    result = run(demos, proxy, collector, outbox, "--visits", "200", *FAST)
    check_all_arrived(database, proxy, result)
    requests = proxy.requests
    throttled = [record for record in requests if record.status == 429]
    assert len(throttled) == 2
    for record in throttled:
        later = [other for other in requests if other.start > record.start]
        assert later, "nothing was sent after a 429"
        waited = later[0].start - record.end
        assert waited >= retry_after - 0.05, f"a request {waited:.3f}s after a 429 with Retry-After: {retry_after}"
    # The throttled events were sent again and stored.
    assert {event_id for record in throttled for event_id in record.event_ids} <= set(assert_exactly_once(database))


@pytest.mark.parametrize("fault", ["500", "reset", "reset-after-forward"])
def test_retried_with_backoff(fault, proxy, collector, database, outbox, demos):
    failures = 3
    if fault == "500":
        proxy.answer(failures, 500)
    else:
        proxy.reset(failures, after_forward=fault == "reset-after-forward")
    result = run(demos, proxy, collector, outbox, "--visits", "100", *FAST)
    ids = check_all_arrived(database, proxy, result)
    requests = proxy.requests
    attempts = requests[:failures + 1]
    expected = 500 if fault == "500" else "reset"
    assert [record.status for record in attempts[:failures]] == [expected] * failures, proxy.describe()
    assert attempts[failures].answered_by == "collector", proxy.describe()
    # The same batch again each time (more may join it: what was written meanwhile).
    for earlier, later in zip(attempts, attempts[1:]):
        assert set(earlier.event_ids) <= set(later.event_ids), "a retry dropped events of the failed request"
    waits = gaps(attempts)
    print("waits between attempts:", [round(wait, 3) for wait in waits])
    assert all(wait >= 0.05 for wait in waits), f"retried without backing off: {waits}"
    assert waits[-1] >= waits[0], f"the backoff did not grow: {waits}"
    if fault == "reset-after-forward":
        # The collector stored each attempt, the client never heard: re-sends, deduplicated.
        assert len(resends(requests)) >= failures
    assert set(attempts[0].event_ids) <= set(ids)


def test_slow_collector_no_duplicates(proxy, collector, database, outbox, demos):
    proxy.slow(1.5)
    result = run(demos, proxy, collector, outbox, "--visits", "200", "--rate", "100", *FAST)
    check_all_arrived(database, proxy, result)
    # The client waited for each stalled answer (a 503 of a collector on a busy machine is retried).
    assert not [record for record in proxy.requests if record.client_gone], f"a client gave up:\n{proxy.describe()}"
    assert not resends(proxy.requests, acknowledged=True), "an acknowledged batch was sent again"


@pytest.mark.parametrize("status", [400, 401])
def test_refused_batch_is_dead_lettered_and_reported(status, proxy, collector, database, outbox, demos):
    proxy.answer(1, status)
    # Paced over a second: the refused request holds the first batches, later ones must still arrive.
    result = run(demos, proxy, collector, outbox, "--visits", "150", "--rate", "150", *FAST)
    refused = proxy.requests[0]
    assert refused.status == status and refused.event_ids
    dead = len(refused.event_ids)
    assert result["dead_lettered"] == result["outbox"]["dead_lettered"] == dead
    assert result["outbox"]["waiting"] == 0
    # Kept on the device, not retried.
    assert sorted(ids_in(batch_files(outbox, "dead-letter"))) == sorted(refused.event_ids)
    assert [record for record in proxy.requests if set(record.event_ids) & set(refused.event_ids)] == [refused]
    # The rest arrived, and the server knows how many were dead-lettered.
    ids = assert_exactly_once(database)
    assert not set(ids) & set(refused.event_ids)
    assert len(ids) == result["tracked"] - dead > 0
    assert reported(database, "dead_lettered_events") == dead, diagnostics(database)
    assert all(isinstance(report.get("outbox_id"), str) and report["outbox_id"] for report in diagnostics(database))


def test_partly_acknowledged_batch_is_not_sent_again_by_the_next_process(proxy, collector, database, outbox,
                                                                          demos):
    # Two batch files of about 600 events, written while offline: a request (1,000 events at most)
    # carries whole batches only, so it takes the first; a restart must not send it again.
    for run_id in ("offline-1", "offline-2"):
        demos(refused_endpoint(), collector.key, outbox, "--visits", "200", "--batch-interval", "5",
              "--flush-timeout", "0", run_id=run_id).wait()
    assert len(ids_in(batch_files(outbox))) > 1000
    # The first request (1,000 events) is acknowledged; then the network fails until the app stops
    # gracefully, the rest of the second file still waiting.
    proxy.forward(1)
    proxy.reset(50)
    app = demos(proxy.url, collector.key, outbox, "--until-signal", "--rate", "1", "--flush-timeout", "1", *FAST,
                run_id="first")
    proxy.wait_for(lambda p: len(p.requests) >= 2 and p.requests[1].end is not None, 60,
                   "the first request answered and the next one reset")
    first = app.terminate()
    assert proxy.requests[0].succeeded and 0 < len(proxy.requests[0].event_ids) <= 1000, proxy.describe()
    assert first["outbox"]["waiting"] > 0
    proxy.pass_through()
    last = run(demos, proxy, collector, outbox, "--visits", "1", *FAST)
    assert last["outbox"]["waiting"] == 0
    assert len(assert_exactly_once(database)) == last["outbox"]["written"]
    again = {event_id for earlier, later in resends(proxy.requests, acknowledged=True)
             for event_id in set(earlier.event_ids) & set(later.event_ids)}
    assert not again, f"{len(again)} acknowledged events sent again:\n{proxy.describe()}"
