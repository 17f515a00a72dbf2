"""Sampling end to end: a plan samples `episode_list_episode_selected` at 50 %;
each demo run with an outbox of its own is an install (its own anonymous id). The decision is the
documented one (SHA-256 of the id, first 8 bytes, below the rate), so each install's selections
are all stored or none, stored ones carry `sample_rate`, and `tally summary` estimates the total
beside the stored count (the 10,000-user figure is the Swift test's: SamplingTests)."""
import hashlib
import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import REGISTRY, TALLY, assert_exactly_once, query
from proxy import TestProxy

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]
RATE = 0.5
SELECTED = "episode_list_episode_selected"


def position(key: str) -> float:
    """The sampling position of docs/delivery.md: what the device computes."""
    word = struct.unpack(">Q", hashlib.sha256(key.encode()).digest()[:8])[0]
    return (word >> 11) * 2.0 ** -53


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    directory = tmp_path / "plan"
    shutil.copytree(REGISTRY, directory)
    path = directory / "episode.json"
    plan = json.loads(path.read_text())
    for event in plan["events"]:
        if event["name"] == SELECTED:
            event["x-tally-sample-rate"] = RATE
    path.write_text(json.dumps(plan, indent=2))
    return directory


def check_install(database: str, run_id: str, result: dict) -> tuple[bool, int]:
    """One install's events as stored: all of its selections or none, as its key decides; whether
    it was kept, and how many selections are stored."""
    rows = query(database, "SELECT name, anonymous_id, user_id, sample_rate FROM tally.events "
                           "WHERE session_id = %s", (run_id,))
    keys = {row[2] or row[1] for row in rows}
    assert len(keys) == 1, f"{run_id}: one install, one sampling key: {keys}"
    key = keys.pop()
    selected = [row for row in rows if row[0] == SELECTED]
    kept = position(key) < RATE
    print(run_id, key, round(position(key), 3), "kept" if kept else "sampled out", len(selected), result)
    if kept:
        assert selected and result["sampled_out"] == 0, f"{run_id}: kept, so all of its selections"
        assert all(row[3] == RATE for row in selected)
    else:
        assert not selected and result["sampled_out"] > 0, f"{run_id}: sampled out, so none of its selections"
    assert all(row[3] is None for row in rows if row[0] != SELECTED), "only the sampled kind carries a rate"
    assert result["tracked"] == result["written"] + result["sampled_out"]
    assert len(rows) == result["written"]
    return kept, len(selected)


def test_sampled_per_install_whole_and_estimated(start_collector, plan, database, tmp_path, demos):
    collector = start_collector("--registry", str(plan))
    proxy = TestProxy(lambda: collector.url if collector.alive() else None).start()
    outcomes: list[tuple[bool, int]] = []
    try:
        # Installs (random anonymous ids) until both outcomes were seen: 3 at least, 2^-15 odds of 16.
        for install in range(16):
            run_id = f"install-{install}"
            result = demos(proxy.url, collector.key, tmp_path / f"outbox-{install}", "--visits", "10",
                           "--registry", str(plan), *FAST, run_id=run_id).wait()
            outcomes.append(check_install(database, run_id, result))
            if install >= 2 and {kept for kept, _ in outcomes} == {True, False}:
                break
    finally:
        proxy.stop()
    assert {kept for kept, _ in outcomes} == {True, False}
    assert_exactly_once(database)
    stored_selected = sum(selected for _, selected in outcomes)
    # The estimate: each stored selection stands for 1 / rate, beside the stored count.
    summary = subprocess.run([str(TALLY), "summary", "--by", "event", "--format", "json", "--database-url", database],
                             capture_output=True, text=True, check=True)
    report = json.loads(summary.stdout)
    rows = {row["event"]: row for row in report["rows"]}
    assert report["sampled"] is True
    assert rows[SELECTED]["events"] == stored_selected
    assert rows[SELECTED]["estimated_events"] == round(stored_selected / RATE)
    assert rows["episode_list_viewed"]["estimated_events"] == rows["episode_list_viewed"]["events"]
    table = subprocess.run([str(TALLY), "summary", "--by", "event", "--database-url", database],
                           capture_output=True, text=True, check=True).stdout
    print(table)
    assert "events (stored)" in table and "estimated" in table and f"~{round(stored_selected / RATE)}" in table
