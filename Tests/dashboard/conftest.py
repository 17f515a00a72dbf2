"""Fixtures of the dashboard tests: the reports tests' generated dataset loaded into a PostgreSQL
database of its own and into a file store, a keys file with a reader key and a write key, saved
reports, and a live `tally dashboard` over each store (its port read from its stderr line)."""
import importlib.util
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
TALLY = Path(os.environ.get("TALLY_BIN", REPOSITORY / ".build/debug/tally"))
ARTIFACTS = Path(os.environ.get("TALLY_ARTIFACTS", REPOSITORY / ".build/artifacts")) / "dashboard"
LISTENING = re.compile(r"^tally dashboard: listening on http://([^:/\s]+):(\d+)\s*$")
sys.path.insert(0, str(HERE.parent / "reports"))
import generate  # noqa: E402  (Tests/reports/generate.py: the reports' edge-case dataset)

# The dataset's first period: where its pages have something to show.
SINCE, UNTIL = "2026-03-01", "2026-05-15"


def tally(*arguments: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(TALLY), *arguments], capture_output=True, text=True, timeout=600, **kwargs)
    if check:
        assert result.returncode == 0, f"tally {' '.join(arguments)}: {result.stderr}"
    return result


@pytest.fixture(scope="session")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dashboard")


@pytest.fixture(scope="session")
def dataset(workdir) -> Path:
    path = workdir / "events.ndjson"
    path.write_text("\n".join(generate.generate()) + "\n")
    return path


@pytest.fixture(scope="session")
def keys(workdir) -> dict:
    keys_file = workdir / "keys.json"
    reader = tally("keys", "add", "--keys", str(keys_file), "--source", "team", "--reader").stdout.strip()
    writer = tally("keys", "add", "--keys", str(keys_file), "--source", "app").stdout.strip()
    return {"file": keys_file, "reader": reader, "writer": writer}


@pytest.fixture(scope="session")
def reports_dir(workdir) -> Path:
    directory = workdir / "reports"
    directory.mkdir()
    (directory / "home.json").write_text(json.dumps({"title": "Home", "reports": [
        {"kind": "funnel", "title": "List to play", "range": {"since": SINCE, "until": UNTIL},
         "steps": ["episode_list_viewed", "episode_list_episode_selected", "player_opened"], "window": "1d"},
        {"kind": "trends", "title": "Players per week", "range": {"since": SINCE, "until": UNTIL},
         "events": ["player_opened"], "measure": "actors", "interval": "week", "time_zone": "Europe/Paris"},
        {"kind": "retention", "title": "Back to play", "range": {"since": SINCE, "until": UNTIL},
         "start": "episode_list_viewed", "return": "player_opened", "period": "week", "periods": 6},
    ]}))
    (directory / "speeds.json").write_text(json.dumps(
        {"kind": "breakdown", "title": "Speeds", "range": {"since": SINCE, "until": UNTIL}, "event": "player_speed_changed",
         "breakdown": {"field": "speed"}}))
    return directory


@pytest.fixture(scope="session")
def file_store(workdir, dataset) -> Path:
    data = workdir / "file-store"
    tally("ingest", str(dataset), "--data-dir", str(data), "--quiet")
    return data


def migrated_database():
    """A new database with tally's tables; yields its URL, then drops it."""
    admin = os.environ.get("TALLY_TEST_DATABASE_URL", "")
    if not admin:
        if os.environ.get("TALLY_TEST_REQUIRE_DATABASE") == "1":
            pytest.fail("TALLY_TEST_REQUIRE_DATABASE=1 but TALLY_TEST_DATABASE_URL is empty")
        pytest.skip("no TALLY_TEST_DATABASE_URL: scripts/test.sh starts a throwaway PostgreSQL")
    import psycopg
    name = "tally_dashboard_" + secrets.token_hex(6)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    url = admin.rsplit("/", 1)[0] + "/" + name
    tally("migrate", "--database-url", url)
    yield url
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def postgres_url(dataset, workdir):
    for url in migrated_database():
        tally("ingest", str(dataset), "--store", "postgres", "--database-url", url, "--data-dir",
              str(workdir / "pg-data"), "--quiet")
        yield url


@pytest.fixture(scope="session")
def empty_postgres_url():
    yield from migrated_database()


class Dashboard:
    """A `tally dashboard` process."""

    def __init__(self, store: list[str], keys: Path | None, reports: Path | None, extra: list[str] = ()):
        self.store = store
        arguments = [str(TALLY), "dashboard", "--port", "0", *store, "--registry", str(REPOSITORY / "Examples/registry"),
                     *extra]
        if keys is not None:
            arguments += ["--keys", str(keys)]
        if reports is not None:
            arguments += ["--reports", str(reports)]
        self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines: list[str] = []
        ready = threading.Event()
        self.port = 0

        def read(stream):
            for line in stream:
                self.lines.append(line.rstrip("\n"))
                match = LISTENING.match(line)
                if match and not ready.is_set():
                    self.port = int(match.group(2))
                    ready.set()

        threading.Thread(target=read, args=(self.process.stderr,), daemon=True).start()
        deadline = time.monotonic() + 60
        while not ready.wait(0.05):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("the dashboard did not start:\n" + "\n".join(self.lines[-20:]))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        return self.process.wait(timeout=30)


@pytest.fixture(scope="session", params=["file", "postgres"])
def dashboard(request, keys, reports_dir, file_store):
    if request.param == "file":
        store = ["--store", "file", "--data-dir", str(file_store)]
    else:
        store = ["--store", "postgres", "--database-url", request.getfixturevalue("postgres_url")]
    server = Dashboard(store, keys["file"], reports_dir)
    server.kind = request.param
    yield server
    assert server.stop() == 0, "\n".join(server.lines[-20:])
