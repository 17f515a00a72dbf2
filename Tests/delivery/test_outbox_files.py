"""The outbox's files under damage and pressure: corrupt batch files, a full disk (a small tmpfs),
an outbox over its caps. Each is handled (moved aside, writing paused, oldest dropped), counted,
and reported to the server in `outbox_diagnostics`, while the rest still arrives exactly once."""
import json
import os
import time

import pytest

from conftest import (assert_exactly_once, batch_files, diagnostics, episode_ids, ids_in, refused_endpoint, reported,
                      restart)

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]
OFFLINE = ["--batch-interval", "0.1", "--flush-timeout", "1"]


def sessions_in(files) -> set[str]:
    sessions = set()
    for file in files:
        for line in file.read_bytes().splitlines():
            try:
                sessions.add(json.loads(line).get("session_id"))
            except ValueError:
                continue
    return sessions


def test_corrupt_batch_files_are_moved_aside(proxy, collector, database, outbox, demos):
    # Batches written while the collector is unreachable stay in the outbox.
    first = demos(refused_endpoint(), collector.key, outbox, "--visits", "200", "--rate", "200", *OFFLINE,
                  run_id="before").wait()
    files = batch_files(outbox)
    assert len(files) >= 4, files
    assert first["outbox"]["waiting"] == first["written"] == len(ids_in(files))
    truncated, garbage = files[0], files[2]
    damaged_ids = set(ids_in([truncated, garbage]))
    intact_ids = set(ids_in([file for file in files if file not in (truncated, garbage)]))
    # Cut at a line boundary (the harder case: every line left still parses), and random bytes.
    lines = truncated.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 2
    truncated.write_bytes(b"".join(lines[:len(lines) // 2]))
    garbage.write_bytes(os.urandom(max(64, garbage.stat().st_size)))

    second = demos(proxy.url, collector.key, outbox, "--visits", "10", *FAST, run_id="after").wait()
    print(first, second, diagnostics(database), sep="\n")
    assert sorted(path.name for path in batch_files(outbox, "corrupt")) == sorted([truncated.name, garbage.name])
    assert second["outbox"]["corrupt"] == len(damaged_ids)  # events, by the files' names
    assert second["outbox"]["waiting"] == 0
    ids = assert_exactly_once(database)
    assert intact_ids <= set(ids), "the queue stopped at a corrupt file"
    assert not damaged_ids & set(ids), "events of a corrupt file were sent"
    assert len(ids) == len(intact_ids) + second["written"]
    assert reported(database, "corrupt_files") == 2
    assert reported(database, "corrupt_events") == len(damaged_ids)


def wait_for_plateau(demo, still: float, timeout: float) -> dict:
    """Waits until `written` has not moved for `still` seconds while `tracked` went on; that progress."""
    deadline = time.monotonic() + timeout
    last = demo.last_progress()
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        progress = demo.last_progress()
        if progress["written"] != last["written"]:
            last, since = progress, time.monotonic()
        elif time.monotonic() - since >= still and progress["tracked"] > last["tracked"]:
            return progress
    raise AssertionError(f"writing never stopped within {timeout}s: {demo.last_progress()}\n{demo.log()}")


def test_full_disk_pauses_writing_and_resumes(proxy, collector, database, tmpfs, demos):
    outbox = tmpfs("1m") / "outbox"
    collector.kill()  # down: nothing leaves the outbox until it is back
    demo = demos(proxy.url, collector.key, outbox, "--until-signal", "--rate", "300", "--batch-interval", "0.2",
                 "--upload-interval", "0.3", run_id="disk")
    full = wait_for_plateau(demo, still=1.5, timeout=60)
    rss_full = demo.rss_kib()
    time.sleep(4)
    later = demo.last_progress()
    rss_later = demo.rss_kib()
    disk = os.statvfs(outbox)
    print(f"disk full at {full}, 4 s later {later}; RSS {rss_full} → {rss_later} KiB; "
          f"{disk.f_bavail * disk.f_frsize} bytes free")
    assert later["tracked"] > full["tracked"] + 1000, "the app stopped tracking"
    # Writing stopped (a small batch may still fit in what a failed one left free).
    assert later["written"] - full["written"] < (later["tracked"] - full["tracked"]) / 20, "writing went on"
    assert rss_later - rss_full < 16 * 1024, "memory grows while the disk is full"

    restart(collector)
    demo.wait_progress(lambda progress: progress["written"] > full["written"] + 500, 60,
                       "writing to resume once the uploader made room")
    result = demo.terminate()
    print(result, diagnostics(database), sep="\n")
    ids = assert_exactly_once(database)
    assert result["dropped"] > 0
    assert result["tracked"] == result["written"] + result["dropped"]
    assert result["outbox"]["waiting"] == 0
    assert len(ids) == result["written"] == len(episode_ids(database, "disk"))
    assert reported(database, "dropped_disk_full") > 0
    drops = sum(reported(database, counter) for counter in ("dropped_queue", "dropped_caps", "dropped_disk_full"))
    assert drops == result["outbox"]["dropped"] == result["dropped"]


CAPS = {
    "events": ["--max-outbox-events", "600"],
    "bytes": ["--max-outbox-bytes", "150000"],
    "age": ["--max-outbox-age", "2"],
}


@pytest.mark.parametrize("cap", list(CAPS))
def test_outbox_over_its_caps_drops_oldest(cap, proxy, collector, database, outbox, demos):
    caps = CAPS[cap]
    down = refused_endpoint()
    # Paced, so that batches are small (about 90 events each) and the caps drop some and keep others.
    old = demos(down, collector.key, outbox, "--visits", "100", "--rate", "300", *OFFLINE, *caps, run_id="old").wait()
    if cap == "age":
        time.sleep(2.5)  # the old run's batches pass the age cap
    else:  # a newer run alone over the cap: the old run's batches go first, then its own oldest
        new = demos(down, collector.key, outbox, "--visits", "300", "--rate", "300", *OFFLINE, *caps,
                    run_id="new").wait()
        files = batch_files(outbox)
        print(new, [file.name for file in files], sep="\n")
        assert new["outbox"]["dropped"] > 0
        assert "old" not in sessions_in(files) and "new" in sessions_in(files)
        if cap == "events":
            assert new["outbox"]["waiting"] <= 600
        else:
            assert sum(file.stat().st_size for file in files) <= 150000
    last = demos(proxy.url, collector.key, outbox, "--visits", "5", *FAST, *caps, run_id="last").wait()
    print(old, last, diagnostics(database), sep="\n")
    ids = assert_exactly_once(database)
    lifetime = last["outbox"]
    assert lifetime["dropped"] > 0 and lifetime["waiting"] == 0
    assert len(episode_ids(database, "old")) == 0, "the oldest events were not the ones dropped"
    assert len(episode_ids(database, "last")) == last["written"]
    dropped_caps = reported(database, "dropped_caps")
    assert len(ids) == lifetime["uploaded"] == lifetime["written"] - dropped_caps
    assert dropped_caps == lifetime["dropped"]  # no other drops: the queue kept up, the disk had room
