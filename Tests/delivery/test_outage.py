"""The collector stopped for 30 s under a tracking app, then started again: the outbox holds what
was tracked meanwhile, and afterwards everything arrives, nothing twice."""
import time

from conftest import assert_exactly_once, episode_ids, restart
from proxy import overlapping

OUTAGE = 30.0


def test_collector_down_for_30_seconds(proxy, collector, database, outbox, demos):
    demo = demos(proxy.url, collector.key, outbox, "--until-signal", "--rate", "20", "--batch-interval", "0.5",
                 "--upload-interval", "0.5", run_id="outage")
    demo.wait_progress(lambda progress: progress["uploaded"] > 0, 30, "the first upload")
    assert collector.terminate() == 0
    stopped = time.monotonic()
    before = demo.last_progress()
    time.sleep(OUTAGE)
    during = demo.last_progress()
    restart(collector)
    restarted = time.monotonic()
    print(f"before the outage {before}, at its end {during}")
    # The app went on writing to its outbox; nothing could be uploaded (give or take a request
    # answered just before the stop).
    assert during["written"] > before["written"] + 100
    assert during["uploaded"] <= before["uploaded"] + 200
    attempts = [r for r in proxy.requests if stopped <= r.start < restarted]
    assert attempts and all(r.status == "unreachable" for r in attempts), proxy.describe()
    # Retries back off: not one attempt per upload interval for 30 s.
    assert len(attempts) < OUTAGE / 0.5, f"{len(attempts)} attempts during the outage:\n{proxy.describe(80)}"

    progress = demo.wait_progress(lambda p: p["uploaded"] >= during["written"], 90,
                                  "the outbox written during the outage uploaded")
    print(f"drained {time.monotonic() - restarted:.1f}s after the restart: {progress}")
    result = demo.terminate()
    print(result)
    ids = assert_exactly_once(database)
    assert result["dropped"] == 0 and result["dead_lettered"] == 0
    assert result["tracked"] == result["written"] == len(ids) == len(episode_ids(database, "outage"))
    assert result["outbox"]["waiting"] == 0 and result["outbox"]["uploaded"] == len(ids)
    assert not overlapping(proxy.requests)
