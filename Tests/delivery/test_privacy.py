"""Personal data: properties a tracking plan marks `x-tally-personal-data` are
removed or hashed on the device, before the outbox, so they never reach the server. Asserted on
what left the device (the proxy's request bodies), on the outbox files and on PostgreSQL."""
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import REGISTRY, assert_exactly_once, ids_in, query
from proxy import TestProxy

FAST = ["--batch-interval", "0.2", "--upload-interval", "0.2"]
HEX = re.compile(r"^[0-9a-f]{64}$")


def private_plan(directory: Path) -> Path:
    """The Examples' plans with the selected episode hashed and its position removed (`episode_id`
    loses its pattern and `position` is no longer required: the plan describes what is sent)."""
    shutil.copytree(REGISTRY, directory)
    path = directory / "episode.json"
    plan = json.loads(path.read_text())
    for event in plan["events"]:
        if event["name"] == "episode_list_episode_selected":
            properties = event["properties"]
            properties["properties"]["episode_id"] = {"type": "string", "x-tally-personal-data": "hash"}
            properties["properties"]["position"]["x-tally-personal-data"] = "remove"
            properties["required"] = ["episode_id"]
    path.write_text(json.dumps(plan, indent=2))
    return directory


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    return private_plan(tmp_path / "plan")


@pytest.fixture
def plan_proxy(start_collector, plan):
    """A collector validating against the private plan, and the proxy in front of it."""
    collector = start_collector("--registry", str(plan))
    proxy = TestProxy(lambda: collector.url if collector.alive() else None).start()
    yield proxy, collector
    proxy.stop()


def test_personal_data_never_reaches_the_server(plan_proxy, plan, database, outbox, demos):
    proxy, collector = plan_proxy
    # --registry again: the last one wins, the demo's default is the Examples' plans.
    result = demos(proxy.url, collector.key, outbox, "--visits", "100", "--registry", str(plan), *FAST).wait()
    print(result)
    assert result["tracked"] == result["uploaded"] > 0 and result["dropped"] == 0
    hashes = {hashlib.sha256(f"ep-{n}".encode()).hexdigest() for n in range(1, 13)}
    # What left the device: no episode id, no position, in any request body.
    assert proxy.requests
    for record in proxy.requests:
        assert record.parse_error is None and record.succeeded, proxy.describe()
        assert '"ep-' not in record.text and '"position"' not in record.text, record.text[:500]
    selected = 0
    for record in proxy.requests:
        for line in record.text.splitlines():
            event = json.loads(line)
            if event["name"] == "episode_list_episode_selected":
                selected += 1
                assert set(event["properties"]) == {"episode_id"}, event
                assert event["properties"]["episode_id"] in hashes, event
    assert selected > 0
    # What the server stored: the hashes, validated against the same plan; no event refused.
    assert_exactly_once(database)
    rows = query(database, "SELECT properties FROM tally.events WHERE name = 'episode_list_episode_selected'")
    assert len(rows) == selected
    for (properties,) in rows:
        assert set(properties) == {"episode_id"} and HEX.match(properties["episode_id"]), properties
    # The same hash for the same episode: still countable per episode.
    per_episode = query(database, "SELECT count(DISTINCT properties->>'episode_id') FROM tally.events "
                                  "WHERE name = 'episode_list_episode_selected'")
    assert 1 <= per_episode[0][0] <= 12


def test_nothing_personal_waits_on_the_disk(plan, outbox, demos):
    # No collector at all: the events stay in the outbox, already scrubbed.
    from conftest import refused_endpoint
    result = demos(refused_endpoint(), "key", outbox, "--visits", "30", "--registry", str(plan), *FAST,
                   "--flush-timeout", "1").wait()
    assert result["outbox"]["waiting"] == result["written"] > 0
    text = "".join(path.read_text() for path in (outbox / "batches").iterdir())
    assert '"ep-' not in text and '"position"' not in text
    assert len(ids_in(sorted((outbox / "batches").iterdir()))) == result["written"]
