"""Fixtures of the delivery tests: the collector tests' database and `tally serve` fixtures
(Tests/collector/conftest.py, loaded here rather than written twice), the test proxy in front of
the collector, and `episode-demo` in app mode (demo.py)."""
import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("collector_conftest", HERE.parent / "collector" / "conftest.py")
collector_conftest = importlib.util.module_from_spec(_spec)
sys.modules["collector_conftest"] = collector_conftest
_spec.loader.exec_module(collector_conftest)

# The collector tests' fixtures, registered here as this directory's own.
admin_url = collector_conftest.admin_url
database = collector_conftest.database
start_collector = collector_conftest.start_collector
REPOSITORY = collector_conftest.REPOSITORY
TALLY = collector_conftest.TALLY
count = collector_conftest.count
query = collector_conftest.query
envelope = collector_conftest.envelope
ndjson_gzip = collector_conftest.ndjson_gzip
sys.path.append(str(HERE.parent / "collector"))  # http_util

from demo import DEMO, REGISTRY, Demo  # noqa: E402
from proxy import TestProxy  # noqa: E402


def require(binary: Path) -> None:
    if not binary.exists():
        pytest.fail(f"{binary} is missing: scripts/test.sh --delivery builds it")


@pytest.fixture
def collector(start_collector):
    require(TALLY)
    """`tally serve` with PostgreSQL and the Examples' plans, on this test's database. The plans know
    nothing of the outbox's `outbox_diagnostics`: tally's own `tally` feature must pass any registry."""
    return start_collector("--registry", str(REGISTRY))


@pytest.fixture
def proxy(collector):
    """The test proxy in front of this test's collector (none while the collector is stopped)."""
    test_proxy = TestProxy(lambda: collector.url if collector.alive() else None).start()
    yield test_proxy
    test_proxy.stop()


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    return tmp_path / "outbox"


@pytest.fixture
def demos(request: pytest.FixtureRequest):
    """start(endpoint, key, outbox, *arguments, run_id=…) → a started Demo, killed after the test
    if it still runs."""
    require(DEMO)

    def start(endpoint: str, key: str, outbox: Path, *arguments: str, run_id: str | None = None) -> Demo:
        demo = Demo(endpoint, key, outbox, list(arguments), run_id=run_id).start()
        request.addfinalizer(demo.kill)
        return demo

    return start


@pytest.fixture
def tmpfs(tmp_path: Path):
    """mount(size) → a directory on a tmpfs of that size (for the full-disk test), unmounted after."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"tmpfs{len(mounted)}"
        point.mkdir()
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            if os.geteuid() != 0:
                pytest.skip(f"mounting a tmpfs needs root: {result.stderr.strip()}")
            pytest.fail(f"mount -t tmpfs failed: {result.stderr.strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], check=False)


def episode_ids(url: str, run_id: str | None = None) -> list[str]:
    """The stored events of the demo (not the outbox's diagnostics), of one run (`--run-id`) if given."""
    sql = "SELECT event_id FROM tally.events WHERE name <> 'outbox_diagnostics'"
    if run_id is None:
        return [str(row[0]) for row in query(url, sql)]
    return [str(row[0]) for row in query(url, sql + " AND session_id = %s", (run_id,))]


def diagnostics(url: str) -> list[dict]:
    """The `outbox_diagnostics` events stored, their properties (oldest first)."""
    rows = query(url, "SELECT properties FROM tally.events WHERE name = 'outbox_diagnostics' ORDER BY occurred_at")
    return [row[0] for row in rows]


def reported(url: str, counter: str) -> int:
    """The sum of one counter over every diagnostic report the server holds (they are deltas)."""
    return sum(int(properties.get(counter, 0)) for properties in diagnostics(url))


def assert_exactly_once(url: str) -> list[str]:
    """No event id stored twice (under another occurred_at either), none refused by the plans; the
    stored ids of the demo's events."""
    assert count(url, "SELECT count(*) FROM tally.failed_events") == 0, query(
        url, "SELECT reason, detail, event FROM tally.failed_events LIMIT 3")
    ids = episode_ids(url)
    assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} events stored twice"
    everything = [str(row[0]) for row in query(url, "SELECT event_id FROM tally.events")]
    assert len(everything) == len(set(everything)), "an event id is stored twice"
    return ids


def refused_endpoint() -> str:
    """A URL nothing listens on (a port just released): every request is refused, as by a collector
    that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def batch_files(outbox: Path, folder: str = "batches") -> list[Path]:
    """The files of OUTBOX/FOLDER, oldest first (their names sort so)."""
    directory = outbox / folder
    return sorted(directory.iterdir()) if directory.exists() else []


def ids_in(files: list[Path]) -> list[str]:
    """The event ids of NDJSON batch files (lines that do not parse are skipped)."""
    ids = []
    for file in files:
        for line in file.read_bytes().splitlines():
            try:
                ids.append(str(json.loads(line)["event_id"]).lower())
            except (ValueError, KeyError, TypeError):
                continue
    return ids


def restart(collector) -> None:
    """The collector again, on a port of the system's choice: the proxy in front follows it."""
    collector.port = 0
    collector.start()
