"""Fault tests against a real collector process and a real PostgreSQL, under load from clients that
resend whatever was not acknowledged: kill -9 of the collector at 10 random moments, and a
PostgreSQL restart. Every acknowledged event is stored (checked right after each fault, before
anything could repair it), nothing twice, and the counts equal the clients' own record."""
import json
import os
import random
import subprocess
import time

import psycopg
import pytest

from conftest import REPOSITORY, count, query, stored_ids
from http_util import request
from resender import ResendingClients

SEED = int(os.environ.get("TALLY_FAULT_SEED", time.time_ns() % 1_000_000))


def restart(collector) -> None:
    """The collector again, on its port (clients keep their URL); on a fresh port if that is taken."""
    try:
        collector.start()
    except AssertionError:
        collector.port = 0
        collector.start()


def check_exact(database: str, clients: ResendingClients) -> None:
    stored = stored_ids(database)
    assert len(stored) == len(set(stored)), "an event was stored twice"
    assert count(database, "SELECT count(DISTINCT event_id) FROM tally.events") == len(stored)
    assert set(stored) == clients.generated, (
        f"stored {len(stored)}, clients generated {len(clients.generated)}: "
        f"{len(clients.generated - set(stored))} missing, {len(set(stored) - clients.generated)} unknown")
    assert clients.acknowledged == clients.generated
    assert clients.failures == []


def test_kill_9_at_ten_random_moments_under_load(collector, database):
    random_moments = random.Random(SEED)
    print(f"TALLY_FAULT_SEED={SEED}")
    clients = ResendingClients(lambda: collector.url, collector.key, threads=4).start()
    for kill in range(10):
        time.sleep(random_moments.uniform(0.3, 1.5))
        collector.kill()
        acknowledged = clients.snapshot()
        missing = acknowledged - set(stored_ids(database))
        assert not missing, f"kill {kill + 1}: {len(missing)} acknowledged events are not stored"
        restart(collector)
    time.sleep(1)
    clients.finish()
    assert collector.terminate() == 0
    print(f"statuses: {clients.statuses}; {len(clients.generated)} events")
    # The kills landed under load: some requests failed, and they were resent.
    assert sum(n for status, n in clients.statuses.items() if status != 200) > 0
    assert len(clients.generated) >= 10 * 100
    check_exact(database, clients)


def postgres(command: str) -> None:
    """Runs scripts/lib/postgres.sh's COMMAND on scripts/test.sh's throwaway cluster."""
    if not os.environ.get("TALLY_PG_ROOT"):
        pytest.fail("TALLY_PG_ROOT is not set: run through scripts/test.sh (its throwaway cluster is restarted)")
    subprocess.run(["bash", "-c", f"source scripts/lib/common.sh; source scripts/lib/postgres.sh; {command}"],
                   cwd=REPOSITORY, check=True, timeout=120)


def started_at(url: str) -> object:
    return query(url, "SELECT pg_postmaster_start_time()")[0][0]


def check_acknowledged_are_stored(database: str, clients: ResendingClients, when: str) -> None:
    acknowledged = clients.snapshot()
    missing = acknowledged - set(stored_ids(database))
    assert not missing, f"{len(missing)} events acknowledged {when} are not stored"


def test_postgres_restart_and_outage_under_load(start_collector, database, admin_url):
    # Committed means on disk even across an immediate (crash) shutdown: the throwaway cluster runs
    # with synchronous_commit=off, which would lose the last commits of any writer, tally or not.
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {database.rsplit('/', 1)[1]} SET synchronous_commit = on")
    # A request deadline of 3 s (default 10): the outage below outlasts it without a long test.
    collector = start_collector("--request-timeout", "3")
    clients = ResendingClients(lambda: collector.url, collector.key, threads=4).start()

    # 1. An immediate restart (a crash and recovery of PostgreSQL), shorter than the deadline.
    time.sleep(1.5)
    before = started_at(database)
    postgres("tally_pg_restart immediate")
    assert started_at(database) != before
    check_acknowledged_are_stored(database, clients, "around the restart")

    # 2. An outage longer than the deadline: 503 (or 429) with Retry-After, nothing acknowledged
    # that is not committed.
    time.sleep(1.5)
    postgres('tally_pg_run "$TALLY_PG_USER" "$TALLY_PG_BINDIR/pg_ctl" -D "$TALLY_PG_ROOT/data" -m immediate -w stop')
    refused_before = clients.statuses.get(503, 0) + clients.statuses.get(429, 0)
    time.sleep(8)
    refused = clients.statuses.get(503, 0) + clients.statuses.get(429, 0) - refused_before
    postgres("tally_pg_launch")
    check_acknowledged_are_stored(database, clients, "during the outage")
    assert refused > 0, f"no 503/429 while PostgreSQL was down: {clients.statuses}"
    assert clients.statuses.get("no Retry-After", 0) == 0
    assert collector.alive(), collector.log()

    time.sleep(4)  # the collector reconnects and the clients' re-sends go through
    clients.finish()
    print(f"statuses: {clients.statuses}; {len(clients.generated)} events")
    assert collector.terminate() == 0
    check_exact(database, clients)


def wait_for_readiness(collector, status: int, timeout: float = 30) -> None:
    """Polls /readyz until it answers `status` (what the test waits for, not a guessed delay)."""
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = request(collector.url, "GET", "/readyz").status
        if seen == status:
            return
        time.sleep(0.05)
    pytest.fail(f"/readyz still {seen} after {timeout} s, expected {status}\n{collector.log()}")


def test_readyz_follows_the_database(collector, database):
    """/readyz checks every sink the collector writes to: 503 while PostgreSQL is down, 200 once it
    is back, from the same process."""
    assert request(collector.url, "GET", "/readyz").status == 200
    postgres('tally_pg_run "$TALLY_PG_USER" "$TALLY_PG_BINDIR/pg_ctl" -D "$TALLY_PG_ROOT/data" -m fast -w stop')
    try:
        reply = request(collector.url, "GET", "/readyz")
        assert reply.status == 503, reply
        assert json.loads(reply.body) == {"status": "unavailable"}
    finally:
        postgres("tally_pg_launch")
    wait_for_readiness(collector, 200)
    assert collector.alive(), collector.log()
