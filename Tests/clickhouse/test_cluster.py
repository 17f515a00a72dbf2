"""ClickHouse as the distributed store, as processes: three `tally serve --store clickhouse` and two
`tally ingest --store clickhouse` load overlapping traffic into a two-shard cluster (the one
scripts/test.sh starts: TALLY_TEST_CLICKHOUSE_URL, both nodes comma-separated, and TALLY_CH_ROOT to
stop and restart a shard), with resending clients (Tests/collector/resender.py); then every summary
equals PostgreSQL's on the same events, each actor's events sit on one shard, and the faults (a
collector killed with -9 at random moments, a shard stopped for 30 s) leave no 2xx for anything
not stored and nothing counted twice."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
sys.path.insert(0, str(REPOSITORY / "Tests/collector"))
from resender import ResendingClients  # noqa: E402

TALLY = Path(os.environ.get("TALLY_BIN", REPOSITORY / ".build/debug/tally"))
LISTENING = re.compile(r".*listening on http://(\[?[^\]]*\]?):(\d+)")


def tally(*arguments: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(TALLY), *arguments], capture_output=True, text=True, timeout=timeout)


def sql(node: str, statement: str) -> str:
    with urllib.request.urlopen(node + "/", data=statement.encode(), timeout=120) as response:
        return response.read().decode()


@pytest.fixture
def nodes() -> list[str]:
    urls = os.environ.get("TALLY_TEST_CLICKHOUSE_URL", "")
    if not urls:
        if os.environ.get("TALLY_TEST_REQUIRE_CLICKHOUSE") == "1":
            pytest.fail("TALLY_TEST_REQUIRE_CLICKHOUSE=1 but TALLY_TEST_CLICKHOUSE_URL is empty")
        pytest.skip("no TALLY_TEST_CLICKHOUSE_URL: scripts/test.sh --clickhouse starts a two-shard cluster")
    nodes = urls.split(",")
    for node in nodes:
        sql(node, "DROP DATABASE IF EXISTS tally")
    result = tally("migrate", "--clickhouse", "--clickhouse-url", urls)
    assert result.returncode == 0, result.stderr
    return nodes


class Collector:
    def __init__(self, urls: str, workdir: Path, keys: Path):
        self.urls, self.workdir, self.keys = urls, workdir, keys
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Collector":
        self.process = subprocess.Popen(
            [str(TALLY), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--store", "clickhouse",
             "--clickhouse-url", self.urls, "--data-dir", str(self.workdir), "--keys", str(self.keys)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        ready = threading.Event()

        def read(stream) -> None:
            for line in stream:
                self.lines.append(line.rstrip("\n"))
                match = LISTENING.match(line)
                if match and not ready.is_set():
                    self.port = int(match.group(2))
                    ready.set()

        threading.Thread(target=read, args=(self.process.stderr,), daemon=True).start()
        assert ready.wait(60), "the collector did not start:\n" + "\n".join(self.lines[-20:])
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@pytest.fixture
def collectors(nodes, tmp_path):
    keys = tmp_path / "keys.json"
    result = tally("keys", "add", "--keys", str(keys), "--source", "clickhouse-tests")
    assert result.returncode == 0, result.stderr
    key = result.stdout.strip()
    started = [Collector(nodes[index % len(nodes)], tmp_path / f"serve-{index}", keys).start() for index in range(3)]
    yield key, started
    for collector in started:
        collector.kill()


def stored(nodes: list[str]) -> tuple[int, int, set[str]]:
    """Rows (copies included), distinct ids, and the ids."""
    rows = int(sql(nodes[0], "SELECT count() FROM tally.events"))
    ids = set(sql(nodes[0], "SELECT DISTINCT toString(event_id) FROM tally.events FORMAT TabSeparated").split())
    return rows, len(ids), ids


def summary(*store: str, by: str = "feature") -> dict:
    result = tally("summary", "--format", "json", "--by", by, "--since", "2000-01-01", "--until", "2100-01-01", *store)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    answer.pop("store", None)
    return answer


def actors_per_shard(nodes: list[str]) -> list[set[str]]:
    return [set(sql(node, "SELECT DISTINCT actor FROM tally.events_local WHERE actor != '' FORMAT TabSeparated")
                .split("\n")) - {""} for node in nodes]


def test_three_collectors_and_two_ingests_store_overlapping_traffic_once(nodes, collectors, tmp_path):
    key, started = collectors
    events = tmp_path / "events.ndjson"
    result = tally("generate", "--events", "30000")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines(keepends=True)
    # Two ingests of overlapping halves, through different nodes, while clients post to all three
    # collectors (a random one per attempt) and the first 40 % of the file goes through a collector too.
    (tmp_path / "first.ndjson").write_text("".join(lines[:18000]))
    (tmp_path / "second.ndjson").write_text("".join(lines[12000:]))
    events.write_text("".join(lines))
    ingests = [subprocess.Popen([str(TALLY), "ingest", str(tmp_path / name), "--quiet", "--store", "clickhouse",
                                 "--clickhouse-url", nodes[index % len(nodes)], "--data-dir", str(tmp_path / name)
                                 + ".dead"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for index, name in enumerate(["first.ndjson", "second.ndjson"])]
    clients = ResendingClients(lambda: random.choice(started).url, key, threads=4, batches_per_thread=15).start()
    for line_start in range(0, 12000, 500):
        body = "".join(lines[line_start:line_start + 500]).encode()
        request = urllib.request.Request(random.choice(started).url + "/v1/events", data=body, headers={
            "Content-Type": "application/x-ndjson", "Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 200
    clients.finish()
    for process in ingests:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
    assert not clients.failures
    rows, distinct, ids = stored(nodes)
    assert clients.snapshot() <= ids, "every acknowledged event is stored"
    total = summary("--store", "clickhouse", "--clickhouse-url", ",".join(nodes))["total"]["events"]
    assert total == distinct == 30000 + len(clients.generated)
    assert rows >= distinct  # copies until merges; counted once
    shards = actors_per_shard(nodes)
    assert all(shards) and not shards[0] & shards[1], "each actor's events sit on one shard"
    # The same events in PostgreSQL give the same summaries.
    database = os.environ.get("TALLY_TEST_DATABASE_URL", "")
    if database:
        import psycopg

        name = "tally_ch_" + os.urandom(6).hex()
        with psycopg.connect(database, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        url = database.rsplit("/", 1)[0] + "/" + name
        try:
            assert tally("migrate", "--database-url", url).returncode == 0
            export = tmp_path / "clients.ndjson"
            # The clients' events as ClickHouse holds them, then the generated file: both into PostgreSQL.
            rows_json = sql(nodes[0], "SELECT DISTINCT toString(event_id) AS event_id, name, feature, properties, "
                            "occurred_at, user_id FROM tally.events FORMAT JSONEachRow")
            with export.open("w") as out:
                for row in rows_json.splitlines():
                    row = json.loads(row)
                    if row["event_id"] not in clients.generated:
                        continue
                    micros = int(row["occurred_at"])
                    out.write(json.dumps({
                        "event_id": row["event_id"], "name": row["name"], "feature": row["feature"],
                        "properties": json.loads(row["properties"]), "user_id": row["user_id"],
                        "occurred_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(micros // 1_000_000))
                        + ".%06dZ" % (micros % 1_000_000)}) + "\n")
            for path in (events, export):
                result = tally("ingest", str(path), "--quiet", "--store", "postgres", "--database-url", url,
                               "--data-dir", str(tmp_path / "pg-dead"))
                assert result.returncode == 0, result.stderr
            for by in ("feature", "event", "day"):
                on_clickhouse = summary("--store", "clickhouse", "--clickhouse-url", ",".join(nodes), by=by)
                on_postgres = summary("--store", "postgres", "--database-url", url, "--exact", by=by)
                assert on_clickhouse["rows"] == on_postgres["rows"], by
                assert on_clickhouse["total"] == on_postgres["total"], by
        finally:
            with psycopg.connect(database, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_collectors_killed_at_random_moments_lose_nothing_and_store_nothing_twice(nodes, collectors):
    key, started = collectors
    clients = ResendingClients(lambda: random.choice([c for c in started if c.alive()] or started).url, key,
                               threads=6).start()
    deadline = time.monotonic() + 20
    kills = 0
    while time.monotonic() < deadline:
        time.sleep(random.uniform(0.2, 1.5))
        victim = random.choice(started)
        victim.kill()
        kills += 1
        time.sleep(random.uniform(0.0, 0.5))
        victim.start()
    clients.finish(timeout=180)
    rows, distinct, ids = stored(nodes)
    acknowledged = clients.snapshot()
    assert acknowledged <= ids, f"{len(acknowledged - ids)} acknowledged events are not stored"
    assert ids <= clients.generated
    total = summary("--store", "clickhouse", "--clickhouse-url", ",".join(nodes))["total"]["events"]
    assert total == distinct == len(clients.generated), "exact counts: every event once"
    assert kills >= 5


def test_a_shard_stopped_for_30_seconds_under_load(nodes, collectors):
    root = os.environ.get("TALLY_CH_ROOT", "")
    if not root:
        pytest.skip("TALLY_CH_ROOT is not set: the shard cannot be stopped and restarted")
    key, started = collectors
    clients = ResendingClients(lambda: random.choice(started).url, key, threads=6).start()
    time.sleep(3)
    # Shard 2 down (kill -9), 30 s, then started again with its own configuration.
    shard = Path(root) / "shard2"
    pid = int((shard / "server.pid").read_text())
    os.kill(pid, signal.SIGKILL)
    while Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    (shard / "server.pid").unlink(missing_ok=True)
    acknowledged_before = len(clients.snapshot())
    time.sleep(30)
    statuses_during = dict(clients.statuses)
    subprocess.run(["clickhouse-server", f"--config-file={shard}/config.xml", f"--pid-file={shard}/server.pid",
                    "--daemon"], check=True, env={**os.environ, "PATH": os.environ["PATH"] + ":/usr/sbin"})
    port = (shard / "http_port").read_text().strip()
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ping", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    time.sleep(3)
    clients.finish(timeout=180)
    rows, distinct, ids = stored(nodes)
    acknowledged = clients.snapshot()
    assert acknowledged <= ids, f"{len(acknowledged - ids)} acknowledged events are not stored"
    total = summary("--store", "clickhouse", "--clickhouse-url", ",".join(nodes))["total"]["events"]
    assert total == distinct == len(clients.generated)
    assert any(status in (503, 429) for status in statuses_during), statuses_during
    assert len(acknowledged) > acknowledged_before


def test_serve_keeps_a_batch_clickhouse_refuses_for_good_in_failed_events_and_acknowledges(nodes, tmp_path):
    # A real type error: both shards' events table now holds session_id as a number, so every insert
    # of an event with a session id fails on the shard (BLOCK_STRUCTURE_MISMATCH), whatever its retries.
    for node in nodes:
        sql(node, "ALTER TABLE tally.events_local MODIFY COLUMN session_id Nullable(UInt32)")
    keys = tmp_path / "keys.json"
    result = tally("keys", "add", "--keys", str(keys), "--source", "clickhouse-tests")
    assert result.returncode == 0, result.stderr
    key = result.stdout.strip()
    collector = Collector(",".join(nodes), tmp_path / "serve", keys).start()
    try:
        ids = [f"0190c0de-0000-7000-8000-{index:012d}" for index in range(12)]
        body = "".join(json.dumps({
            "event_id": event_id, "name": "episode_played", "feature": "player", "user_id": f"user-{index}",
            "session_id": f"session-{index}", "occurred_at": "2026-11-02T10:00:00Z", "properties": {}}) + "\n"
            for index, event_id in enumerate(ids))
        request = urllib.request.Request(collector.url + "/v1/events", data=body.encode(), headers={
            "Content-Type": "application/x-ndjson", "Authorization": f"Bearer {key}"})
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 200, "the dead letter is durable: acknowledged"
        # At once, not after the round's retries and backoff.
        assert time.monotonic() - started < 5
        rows = [line.split("\t") for line in sql(
            nodes[0], "SELECT event_id, reason, detail FROM tally.failed_events FORMAT TabSeparated").splitlines()]
        assert sorted(row[0] for row in rows) == ids
        assert {row[1] for row in rows} == {"clickhouse_171"}
        assert all("Block structure mismatch" in row[2] for row in rows), rows[0]
        assert not any("commit round failed" in line for line in collector.lines), "not retried"
    finally:
        collector.kill()
    # tally doctor warns about them, with ClickHouse's reason; nothing fails.
    doctor = tally("doctor", "--store", "clickhouse", "--clickhouse-url", ",".join(nodes), "--format", "json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    report = json.loads(doctor.stdout)
    assert report["status"] == "warn", report
    failed = [check for check in report["checks"] if check["name"] == "failed events"]
    assert failed and failed[0]["status"] == "warn" and "clickhouse_171" in failed[0]["message"], report
    strict = tally("doctor", "--store", "clickhouse", "--clickhouse-url", ",".join(nodes), "--strict")
    assert strict.returncode == 1, strict.stdout + strict.stderr
