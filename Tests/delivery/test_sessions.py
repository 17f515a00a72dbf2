"""Sessions through the real outbox and uploader into a live `tally serve` (the Examples' plans,
which know nothing of tally's own session events): a relaunch within the idle timeout keeps the
session (it is persisted in the outbox's identity.json), one after it starts a new one, and the
session events arrive once each."""
import time

from conftest import count, query

TIMEOUT = 4.0


def test_relaunch_within_and_after_the_idle_timeout(collector, database, outbox, demos):
    arguments = ["--visits", "5", "--session-timeout", str(TIMEOUT), "--session-events"]
    first = demos(collector.url, collector.key, outbox, *arguments).wait()
    second = demos(collector.url, collector.key, outbox, *arguments).wait()
    time.sleep(TIMEOUT + 1.5)
    third = demos(collector.url, collector.key, outbox, *arguments).wait()
    print(first, second, third, sep="\n")
    assert first["session_id"] and first["session_id"] == second["session_id"] != third["session_id"]

    sessions = dict(query(database, "SELECT session_id, count(*) FROM tally.events WHERE feature = 'episode' "
                                    "GROUP BY 1"))
    tracked = [result["tracked"] for result in (first, second, third)]
    assert sessions == {first["session_id"]: tracked[0] - 1 + tracked[1], third["session_id"]: tracked[2] - 2}, (
        "every event carries its session (the first run's session_started and the third's start and end "
        "are tally events)")
    started = query(database, "SELECT session_id FROM tally.events WHERE name = 'session_started' ORDER BY occurred_at")
    assert [row[0] for row in started] == [first["session_id"], third["session_id"]]
    ended = query(database, "SELECT session_id, properties FROM tally.events WHERE name = 'session_ended'")
    assert len(ended) == 1 and ended[0][0] == first["session_id"] and ended[0][1]["duration_ms"] >= 0
    assert count(database, "SELECT count(*) FROM tally.failed_events") == 0
