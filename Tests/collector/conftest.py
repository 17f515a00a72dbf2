"""Fixtures of the collector tests: a database of its own per test on the throwaway cluster of
scripts/test.sh, and a real collector process (`tally serve`, or the FastAPI baseline with
TALLY_COLLECTOR=baseline) started with `--port 0`, its port read from its stderr line."""
import base64
import gzip
import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
TALLY = Path(os.environ.get("TALLY_BIN", REPOSITORY / ".build/debug/tally"))
BASELINE = REPOSITORY / "Benchmarks/collector-baseline/serve.py"
UNDER_TEST = os.environ.get("TALLY_COLLECTOR", "tally")
LISTENING = re.compile(r"^(?:tally serve|baseline): listening on http://(\[[^\]]+\]|[^:/\s]+):(\d+)\s*$")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tally_only: needs a route or option only `tally serve` has")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if UNDER_TEST != "baseline":
        return
    skip = pytest.mark.skip(reason="TALLY_COLLECTOR=baseline answers /v1/events only")
    for item in items:
        if "tally_only" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def admin_url() -> str:
    url = os.environ.get("TALLY_TEST_DATABASE_URL", "")
    if url:
        return url
    if os.environ.get("TALLY_TEST_REQUIRE_DATABASE") == "1":
        pytest.fail("TALLY_TEST_REQUIRE_DATABASE=1 but TALLY_TEST_DATABASE_URL is empty (scripts/test.sh starts one)")
    pytest.skip("no TALLY_TEST_DATABASE_URL: scripts/test.sh starts a throwaway PostgreSQL for these tests")


@pytest.fixture
def database(admin_url: str):
    """A new database with tally's tables (`tally migrate`), dropped after the test."""
    name = "tally_collector_" + secrets.token_hex(6)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    migrate = subprocess.run([str(TALLY), "migrate", "--database-url", url], capture_output=True, text=True)
    assert migrate.returncode == 0, migrate.stderr
    yield url
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def query(url: str, sql: str, parameters=()) -> list[tuple]:
    with psycopg.connect(url) as connection:
        return connection.execute(sql, parameters).fetchall()


def count(url: str, sql: str = "SELECT count(*) FROM tally.events", parameters=()) -> int:
    return query(url, sql, parameters)[0][0]


def stored_ids(url: str, table: str = "tally.events") -> list[str]:
    return [str(row[0]) for row in query(url, f"SELECT event_id FROM {table}")]


class Collector:
    """One collector process; `start()` again after `kill()` restarts it on the same port."""

    def __init__(self, database_url: str, workdir: Path, key: str, keys_file: Path, extra: list[str]):
        self.database_url, self.workdir, self.key, self.keys_file = database_url, workdir, key, keys_file
        self.extra = extra
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.host = "127.0.0.1"
        self.stderr_lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def command(self) -> list[str]:
        if UNDER_TEST == "baseline":
            python = REPOSITORY / ".build/python/bin/python"
            return [str(python), str(BASELINE), "--port", str(self.port), "--database-url", self.database_url,
                    "--keys", str(self.keys_file)]
        return [str(TALLY), "serve", "--host", self.host, "--port", str(self.port), "--store", "postgres",
                "--database-url", self.database_url, "--data-dir", str(self.workdir / "data"),
                "--keys", str(self.keys_file), *self.extra]

    def start(self, timeout: float = 60) -> "Collector":
        # Its own process group: kill() then reaches the baseline's uvicorn workers too.
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)
        ready = threading.Event()

        def read(stream) -> None:
            for line in stream:
                self.stderr_lines.append(line.rstrip("\n"))
                match = LISTENING.match(line)
                if match and not ready.is_set():
                    self.host, self.port = match.group(1), int(match.group(2))
                    ready.set()

        threading.Thread(target=read, args=(self.process.stderr,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.05):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the collector did not start: {self.command()[:2]}\n" + self.log())
        return self

    def log(self) -> str:
        return "\n".join(self.stderr_lines[-40:])

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """kill -9 of the whole process group."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait()

    def terminate(self, timeout: float = 60) -> int:
        """SIGTERM (graceful shutdown); its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("no exit within %ss of SIGTERM\n%s" % (timeout, self.log()))

    def peak_rss_kib(self) -> int:
        """VmHWM of the collector process (peak resident set)."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1))

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def add_key(keys_file: Path, source: str) -> str:
    """A write key for `source`: `tally keys add` (the baseline reads the same file format)."""
    if UNDER_TEST == "baseline":
        key = secrets.token_urlsafe(24)
        entries = json.loads(keys_file.read_text())["keys"] if keys_file.exists() else []
        entries.append({"sha256": hashlib.sha256(key.encode()).hexdigest(), "source": source})
        keys_file.write_text(json.dumps({"keys": entries}))
        return key
    result = subprocess.run([str(TALLY), "keys", "add", "--keys", str(keys_file), "--source", source],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    key = result.stdout.strip()
    assert key and "\n" not in key, result.stdout
    return key


@pytest.fixture
def start_collector(database: str, tmp_path: Path):
    """start_collector(*extra_arguments) → a started Collector on this test's database."""
    started: list[Collector] = []
    keys_file = tmp_path / "keys.json"
    key = add_key(keys_file, "collector-tests")

    def start(*extra: str) -> Collector:
        collector = Collector(database, tmp_path, key, keys_file, list(extra)).start()
        started.append(collector)
        return collector

    yield start
    for collector in started:
        collector.kill()


@pytest.fixture
def collector(start_collector) -> Collector:
    return start_collector()


def envelope(name: str = "episode_list_viewed", feature: str = "episode", **extra) -> dict:
    """A tally envelope with a fresh UUID and a fixed occurred_at (so a re-send is a duplicate)."""
    event = {"event_id": str(uuid.uuid4()), "name": name, "feature": feature, "properties": {"n": 1},
             "occurred_at": "2026-11-20T10:00:00.000Z", "user_id": "user-1"}
    event.update(extra)
    return event


def ndjson_gzip(events: list[dict]) -> bytes:
    return gzip.compress("".join(json.dumps(event) + "\n" for event in events).encode(), compresslevel=6)


def basic(key: str) -> str:
    return "Basic " + base64.b64encode(f"{key}:".encode()).decode()
