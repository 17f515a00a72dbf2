"""episode-demo in app mode against a live `tally serve` with PostgreSQL, through the test proxy
(passing everything through): the demo's events arrive exactly once, on tally's wire and on
Segment's, and two processes sharing one outbox never have two requests open at once."""
import pytest

from conftest import assert_exactly_once, episode_ids
from proxy import overlapping, resends

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]
MAX_REQUEST_BYTES = 500 * 1024
MAX_INFLATED_BYTES = 8 * 1024 * 1024


def check_requests(proxy, segment: bool) -> None:
    """Every request: the mode's route and credentials, gzip, within the collector's limits, one at a time."""
    requests = proxy.requests
    assert requests, "no request reached the proxy"
    for record in requests:
        assert record.path == ("/v1/batch" if segment else "/v1/events"), record.path
        assert record.headers.get("content-encoding") == "gzip", record.headers
        assert record.headers.get("authorization", "").startswith("Basic " if segment else "Bearer "), record.headers
        assert record.parse_error is None, record.parse_error
        assert record.bytes <= MAX_REQUEST_BYTES and record.inflated_bytes <= MAX_INFLATED_BYTES
    assert not overlapping(requests), f"requests from one outbox overlapped:\n{proxy.describe()}"


@pytest.mark.parametrize("wire", ["tally", "segment"])
def test_events_arrive_exactly_once(wire, proxy, collector, database, outbox, demos):
    segment = wire == "segment"
    arguments = ["--visits", "400", "--rate", "400", *FAST] + (["--segment"] if segment else [])
    result = demos(proxy.url, collector.key, outbox, *arguments, run_id=f"once-{wire}").wait()
    print(result)
    assert result["tracked"] >= 400 * 2  # a visit: the list viewed and 1 to 3 episodes selected
    assert result["dropped"] == 0 and result["dead_lettered"] == 0
    assert result["tracked"] == result["written"] == result["uploaded"]
    assert result["outbox"]["waiting"] == 0
    assert result["outbox"]["written"] == result["outbox"]["uploaded"] == result["tracked"]

    ids = assert_exactly_once(database)
    assert len(ids) == result["tracked"]
    if not segment:  # --run-id is the envelope's session_id
        assert len(episode_ids(database, f"once-{wire}")) == result["tracked"]
    # The JSON line's session id is the one the events carry (--run-id), not the delivery's own.
    assert result["session_id"] == f"once-{wire}", result
    acknowledged = [event_id for record in proxy.requests if record.succeeded for event_id in record.event_ids]
    assert set(ids) == set(acknowledged), "the stored ids are not the ones acknowledged"
    assert len(acknowledged) == len(set(acknowledged)), f"an event was acknowledged twice:\n{proxy.describe()}"
    assert not resends(proxy.requests, acknowledged=True), "an acknowledged batch was sent again"
    check_requests(proxy, segment)
    assert len(proxy.requests) > 1, "one request for everything: the upload interval was not used"


def test_two_processes_on_one_outbox(proxy, collector, database, outbox, demos):
    # A slow collector widens every request, so two uploaders that did not share the lock would overlap.
    proxy.slow(0.3)
    arguments = ["--visits", "300", "--rate", "150", *FAST]
    first = demos(proxy.url, collector.key, outbox, *arguments, run_id="app")
    second = demos(proxy.url, collector.key, outbox, *arguments, run_id="extension")
    results = {"app": first.wait(90), "extension": second.wait(90)}
    print(results)
    print(proxy.describe(100))
    ids = assert_exactly_once(database)
    for run_id, result in results.items():
        assert result["dropped"] == 0 and result["dead_lettered"] == 0
        assert result["tracked"] == result["written"]
        assert len(episode_ids(database, run_id)) == result["tracked"], f"{run_id}: events lost"
    assert len(ids) == sum(result["tracked"] for result in results.values())
    # The lifetime counters are the directory's, shared: the last to end saw both runs' writes.
    last = max(results.values(), key=lambda result: result["outbox"]["written"])["outbox"]
    assert last["written"] == len(ids) and last["waiting"] == 0 and last["uploaded"] == len(ids)
    assert not overlapping(proxy.requests), f"two requests from one outbox at once:\n{proxy.describe(100)}"
    # Requests carry whole batches (one larger than a request is split on disk first), so what one
    # process had acknowledged, the other never sends again.
    again = {event_id for first, later in resends(proxy.requests, acknowledged=True)
             for event_id in set(first.event_ids) & set(later.event_ids)}
    assert not again, f"{len(again)} acknowledged events sent again:\n{proxy.describe(100)}"
