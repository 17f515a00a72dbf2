"""An outbox full to its caps after crashes, then a restart: the backlog leaves within the flush
timeout. Five runs of episode-demo tracking as fast as they can (no --rate) are each killed with
`kill -9` 0.7 to 2.5 s after their start, so the outbox reaches its byte cap and drops its oldest
batches; the kills land during batch writes (the flood writes all the time) and, the proxy stalling
requests for two of them, during uploads. A sixth run with --visits 50 and the default
--flush-timeout must leave the outbox empty. A second test builds by hand every state a crash can
leave (a pending report whose file is missing, settled entries whose files are still there, a split
cut short, a stale in-flight list, a temporary file) and checks the same, event by event."""
import json
import os
import random
import time
import uuid

from conftest import (assert_exactly_once, batch_files, diagnostics, episode_ids, ids_in, query, refused_endpoint,
                      reported)

SEED = int(os.environ.get("TALLY_DELIVERY_SEED", time.time_ns() % 1_000_000))
FLUSH_TIMEOUT = "10"  # episode-demo's default, said explicitly: the demos fixture would give 60
STALL = 1.0
LOSSES = ("dropped_queue", "dropped_caps", "dropped_disk_full", "corrupt_files", "corrupt_events",
          "dead_lettered_events")


def waiting_events(outbox) -> int:
    """Events in the outbox's batch files, by their names (SEQUENCE-COUNT.ndjson)."""
    return sum(count_of(path) for path in batch_files(outbox) if "diagnostics" not in path.name)


def all_ids(database) -> list[str]:
    return [str(row[0]) for row in query(database, "SELECT event_id FROM tally.events")]


def sequence_of(path) -> int:
    return int(path.name.split("-")[0])


def count_of(path) -> int:
    return int(path.stem.split("-")[1])


def reconciled(outbox) -> dict:
    """state.json as the outbox's next reconcile would leave it (what a killed run had not saved
    yet: batches written but not counted, settled files not yet removed), so that the test can add
    leftovers of its own to a consistent state."""
    state = json.loads((outbox / "state.json").read_text())
    assert state.get("pending_split") is None, state  # nothing answered 413
    for settlement in state.get("settled", []):
        (outbox / "batches" / settlement["name"]).unlink(missing_ok=True)
    state["settled"] = []
    files = batch_files(outbox)
    for path in files:
        if sequence_of(path) > state["last_sequence"] and "diagnostics" not in path.name:
            state["written"] += count_of(path)
    state["last_sequence"] = max([state["last_sequence"], *map(sequence_of, files)])
    pending = state.get("pending_report")
    if pending is not None and any(sequence_of(path) == pending["sequence"] for path in files):
        state["pending_report"] = None
    return state


def flood(endpoint: str, key: str, outbox, demos, moments: random.Random, run_id: str, proxy=None,
          stalled: bool = False, written: int = 0) -> tuple[dict, int]:
    """A run tracking as fast as it can, killed 0.7–2.5 s after its start (during a request when
    `stalled`; not before it wrote `written` events); its last progress line and the requests open
    at the kill."""
    earlier = len(proxy.requests) if proxy is not None else 0
    started = time.monotonic()
    demo = demos(endpoint, key, outbox, "--until-signal", run_id=run_id)
    demo.wait_progress(lambda progress: progress["tracked"] > 0 and progress["written"] >= written, 60,
                       f"{written} events written")
    time.sleep(max(0.0, started + moments.uniform(0.7, 2.5) - time.monotonic()))
    if stalled:
        # A request that began less than half the stall ago: still held by the proxy at the kill.
        proxy.wait_for(lambda p: any(r.end is None and time.monotonic() - r.start < STALL / 2
                                     for r in p.requests[earlier:]), 20, f"a request of {run_id} in flight")
        time.sleep(moments.uniform(0.0, STALL / 4))
    open_requests = sum(1 for record in proxy.requests[earlier:] if record.end is None) if proxy is not None else 0
    return demo.kill(), open_requests


def final_run(collector, outbox, demos) -> tuple[dict, float]:
    """The restart: straight to the collector (the proxy's own work would count against the timeout)."""
    started = time.monotonic()
    result = demos(collector.url, collector.key, outbox, "--visits", "50", "--flush-timeout", FLUSH_TIMEOUT,
                   run_id="final").wait(90)
    return result, time.monotonic() - started


def check_lifetime(database, outbox, result: dict) -> None:
    """Nothing waits; every loss the directory counted was reported to the server, exactly."""
    lifetime = result["outbox"]
    state = json.loads((outbox / "state.json").read_text())
    assert lifetime["waiting"] == 0 and batch_files(outbox) == [], (lifetime, batch_files(outbox))
    assert state.get("pending_report") is None and state.get("pending_split") is None, state
    counts = state["counts"]
    for counter in LOSSES:
        assert reported(database, counter) == counts[counter], (counter, diagnostics(database))
    assert lifetime["written"] == (lifetime["uploaded"] + counts["dropped_caps"] + counts["corrupt_events"]
                                   + counts["dead_lettered_events"] + lifetime["purged"])


def test_backlog_at_the_caps_after_kill_9s_leaves_within_the_flush_timeout(proxy, collector, database, outbox,
                                                                           demos):
    print(f"TALLY_DELIVERY_SEED={SEED}")
    moments = random.Random(SEED)
    in_flight_at_kills = 0
    for kill in range(5):
        stalled = kill in (1, 3)
        proxy.slow(STALL if stalled else 0.0)
        progress, open_requests = flood(proxy.url, collector.key, outbox, demos, moments, f"flood-{kill}", proxy,
                                        stalled)
        in_flight_at_kills += open_requests
        leftovers = [path.name for path in (outbox / "tmp").iterdir() if path.name != "reserve"]
        print(f"flood-{kill}: killed after {progress}; {waiting_events(outbox)} events waiting; "
              f"temporary files left by writes cut short: {leftovers}")
    proxy.pass_through()
    state = json.loads((outbox / "state.json").read_text())
    backlog = waiting_events(outbox)
    print("before the last run:", backlog, "events waiting;", json.dumps(state)[:1500])
    assert state["counts"]["dropped_caps"] > 0, "the outbox never reached its caps: the test tested nothing"
    assert in_flight_at_kills >= 2, "no kill landed during an upload"

    result, elapsed = final_run(collector, outbox, demos)
    print(f"the last run ended after {elapsed:.1f} s: {result}")
    check_lifetime(database, outbox, result)
    assert result["uploaded"] > 0
    assert_exactly_once(database)
    assert len(episode_ids(database, "final")) == result["tracked"] == result["written"]


def test_every_crash_leftover_at_once_still_leaves_within_the_flush_timeout(collector, database, outbox, demos):
    print(f"TALLY_DELIVERY_SEED={SEED}")
    # Offline: the outbox fills past its byte cap (10 MB, about 20,000 of these events), nothing leaves.
    flood(refused_endpoint(), collector.key, outbox, demos, random.Random(SEED), "offline", written=40_000)
    state = reconciled(outbox)
    events = [path for path in batch_files(outbox) if "diagnostics" not in path.name]
    reports = [path for path in batch_files(outbox) if "diagnostics" in path.name]
    assert state["counts"]["dropped_caps"] > 0 and len(events) >= 4, (state, events)
    sequence = state["last_sequence"]

    # A report decided and saved, its file not yet written (kill -9 between the two): it carries
    # the losses of the one waiting (removed) and those not reported yet.
    delta = {counter: state["counts"][counter] - state["reported"][counter] for counter in state["counts"]}
    for report in reports:
        properties = json.loads(report.read_text())["properties"]
        for counter in delta:
            delta[counter] += int(properties.get(counter, 0))
        report.unlink()
    if state.get("pending_report") is not None:  # a kill left one already: fold it in
        for counter in delta:
            delta[counter] += state["pending_report"]["delta"][counter]
    sequence += 1
    state["reported"] = dict(state["counts"])
    state["pending_report"] = {"sequence": sequence, "event_id": str(uuid.uuid4()), "occurred_at": time.time_ns(),
                               "delta": delta}
    # The oldest batch dropped by the caps and settled, its file still there (kill -9 before the unlink).
    dropped = events[0]
    state["counts"]["dropped_caps"] += count_of(dropped)
    state["settled"] = [{"disposition": "delete", "name": dropped.name}]
    # A batch being split after a 413: its first part written, the second not (kill -9 in between).
    original = events[1]
    lines = original.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    parts = [f"{sequence + 1:016d}-{half}.ndjson", f"{sequence + 2:016d}-{len(lines) - half}.ndjson"]
    (outbox / "batches" / parts[0]).write_bytes(b"".join(lines[:half]))
    state["pending_split"] = {"original": original.name, "parts": parts}
    sequence += 2
    state["last_sequence"] = sequence
    # A request in flight at the kill (one of its files gone since), and a write cut short before its rename.
    state["in_flight"] = [events[2].name, f"{sequence + 40:016d}-diagnostics.ndjson"]
    (outbox / "tmp" / "4242-cutshort.tmp").write_bytes(events[3].read_bytes()[:1000])
    (outbox / "state.json").write_text(json.dumps(state))
    expected = set(ids_in([path for path in events if path != dropped]))

    result, elapsed = final_run(collector, outbox, demos)
    print(f"the last run ended after {elapsed:.1f} s: {result}")
    check_lifetime(database, outbox, result)
    ids = assert_exactly_once(database)
    final = set(episode_ids(database, "final"))
    assert len(final) == result["tracked"] == result["written"]
    # Every event of the leftovers stored once, but those the caps dropped when the last run wrote
    # its own batch (the stale in-flight list let the outbox hold one request above them).
    stored = set(ids) - final
    dropped_now = json.loads((outbox / "state.json").read_text())["counts"]["dropped_caps"] - state["counts"][
        "dropped_caps"]
    assert stored <= expected, f"{len(stored - expected)} events stored that no batch held"
    assert len(expected - stored) == dropped_now, f"{len(expected - stored)} missing, {dropped_now} dropped"
    assert result["outbox"]["uploaded"] == len(ids)
    assert state["pending_report"]["event_id"] in set(all_ids(database)), "the pending report was not written again"
