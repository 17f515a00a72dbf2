"""kill -9 of episode-demo at 10 random moments, half of them while a request is in flight (the
proxy stalls every request for a second then), each followed by a new run on the same outbox; a
last run ends gracefully. PostgreSQL then holds every event written to the outbox exactly once,
and every run's tracked events are accounted for: stored, or lost within the batch interval
before its kill (read from its last `--progress` line)."""
import os
import random
import time

from conftest import assert_exactly_once, episode_ids
from proxy import resends

SEED = int(os.environ.get("TALLY_DELIVERY_SEED", time.time_ns() % 1_000_000))
BATCH_INTERVAL = 0.5
RATE = 40  # visits a second; a visit tracks 2 to 4 events
EVENTS_PER_SECOND = 4 * RATE
PROGRESS_PERIOD = 0.2
STALL = 1.0


def test_kill_9_at_ten_random_moments_then_restart(proxy, collector, database, outbox, demos):
    print(f"TALLY_DELIVERY_SEED={SEED}")
    moments = random.Random(SEED)
    arguments = ["--until-signal", "--rate", str(RATE), "--batch-interval", str(BATCH_INTERVAL),
                 "--upload-interval", "0.3"]
    killed = []  # (run id, last progress line, requests open at the kill)
    for kill in range(10):
        mid_upload = kill % 2 == 1
        proxy.slow(STALL if mid_upload else 0.0)
        run_id = f"killed-{kill}"
        earlier = len(proxy.requests)  # requests of earlier runs, some perhaps still stalled
        demo = demos(proxy.url, collector.key, outbox, *arguments, run_id=run_id)
        demo.wait_progress(lambda progress: progress["tracked"] > 0, 30, "the first events tracked")
        time.sleep(moments.uniform(0.1, 1.5))
        if mid_upload:
            proxy.wait_for(lambda p: any(r.end is None for r in p.requests[earlier:]), 20,
                           f"a request of run {run_id} in flight")
            time.sleep(moments.uniform(0.0, STALL / 2))
        open_requests = [record for record in proxy.requests if record.end is None]
        progress = demo.kill()
        killed.append((run_id, progress, open_requests))
        print(f"{run_id}: killed after {progress}, {len(open_requests)} request(s) in flight")

    proxy.pass_through()
    final = demos(proxy.url, collector.key, outbox, "--visits", "20", "--batch-interval", str(BATCH_INTERVAL),
                  "--upload-interval", "0.3", run_id="final").wait(60)
    print(final)
    lifetime = final["outbox"]

    # Every event written to the outbox is stored exactly once, and nothing else is.
    ids = assert_exactly_once(database)
    assert lifetime["waiting"] == 0, lifetime
    assert lifetime["dropped"] == lifetime["dead_lettered"] == lifetime["corrupt"] == 0, lifetime
    assert lifetime["written"] == lifetime["uploaded"] == len(ids), lifetime

    # Each killed run: what it had written is stored; what it had tracked is stored or was lost
    # within the batch interval before the kill (plus the progress line's period, and the events
    # tracked between that line and the kill, which no line told).
    window = EVENTS_PER_SECOND * (BATCH_INTERVAL + PROGRESS_PERIOD + 0.5)
    for run_id, progress, _ in killed:
        stored = len(episode_ids(database, run_id))
        assert stored >= progress["written"], f"{run_id}: written {progress['written']}, stored {stored}"
        assert progress["tracked"] - stored <= window, (
            f"{run_id}: tracked {progress['tracked']}, stored {stored}: more lost than the batch interval holds")
        assert stored <= progress["tracked"] + EVENTS_PER_SECOND * (PROGRESS_PERIOD + 0.3)
    assert len(episode_ids(database, "final")) == final["tracked"] == final["written"]

    # Kills landed during uploads: those requests' events are stored once (the collector got them
    # after the kill, and the next run sent the batch again: a duplicate, deduplicated).
    in_flight = [record for _, _, records in killed for record in records if record.event_ids]
    assert len(in_flight) >= 3, "too few kills landed during an upload"
    assert set(ids) >= {event_id for record in in_flight for event_id in record.event_ids}
    resent = {id(first) for first, _ in resends(proxy.requests)}
    assert any(id(record) in resent for record in in_flight), "no batch in flight at a kill was sent again"
