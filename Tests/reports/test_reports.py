"""`tally report` on both stores against the reference (reference.py), case by case (cases.py).

The generated dataset (generate.py) is ingested into a file store twice (the file, then its lines
shuffled: every event is stored twice, in another order) and into a PostgreSQL database of its own
(`tally migrate` first) on TALLY_TEST_DATABASE_URL; then every case runs with `--format json` on
each store and must equal the reference's answer, `store` aside. Numbers compare as exact
decimals (`25.00` = `25`); ratios and shares must also be written with 4 digits after the point.

Skips with a message while `tally report` does not exist; without a database the PostgreSQL half
skips, or fails under TALLY_TEST_REQUIRE_DATABASE=1 (scripts/test.sh).
"""
from __future__ import annotations

import json
import os
import random
import secrets
import shlex
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import generate  # noqa: E402
import reference  # noqa: E402

REPOSITORY = HERE.parents[1]
TALLY = Path(os.environ.get("TALLY_BIN", REPOSITORY / ".build/debug/tally"))
RATIO_MEMBERS = ("conversion_from_first", "conversion_from_previous", "shares")
CASE_NAMES = [name for name, _ in cases.CASES]
SPECS = dict(cases.CASES)


def tally(*arguments: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(TALLY), *arguments], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def require_binary() -> None:
    if not TALLY.exists():
        message = f"{TALLY} is missing: build it first (scripts/test.sh builds it)"
        if os.environ.get("TALLY_TEST_REQUIRE_DATABASE") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def report_command() -> None:
    require_binary()
    result = tally("report", "--help")
    if result.returncode != 0 or "USAGE: tally report" not in result.stdout + result.stderr:
        pytest.skip(f"`{TALLY} report` is not available yet: the report comparison waits for it")


@pytest.fixture(scope="session")
def dataset(tmp_path_factory) -> dict:
    """The generated lines, as a file and as a copy with its lines shuffled."""
    directory = tmp_path_factory.mktemp("reports-data")
    lines = generate.generate()
    shuffled = list(lines)
    random.Random(20261025).shuffle(shuffled)
    (directory / "events.ndjson").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (directory / "shuffled.ndjson").write_text("".join(line + "\n" for line in shuffled), encoding="utf-8")
    return {"directory": directory, "lines": lines, "files": [directory / "events.ndjson",
                                                              directory / "shuffled.ndjson"]}


@pytest.fixture(scope="session")
def reference_answers(dataset) -> dict:
    answers = reference.Reference(dataset["lines"])
    result = {name: answers.report(spec) for name, spec in cases.CASES}
    if os.environ.get("TALLY_REPORTS_DUMP"):  # a directory: the reference's answers, one file per case
        directory = Path(os.environ["TALLY_REPORTS_DUMP"])
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "events.ndjson").write_text("".join(line + "\n" for line in dataset["lines"]), encoding="utf-8")
        for name, answer in result.items():
            (directory / f"{name}.json").write_text(reference.dumps(answer) + "\n", encoding="utf-8")
            (directory / f"{name}.sh").write_text(cases.shell(SPECS[name]) + "\n", encoding="utf-8")
    return result


@pytest.fixture(scope="session")
def reference_store(dataset) -> reference.Store:
    return reference.Reference(dataset["lines"]).store


def ingest(dataset: dict, *sink: str) -> list[dict]:
    reports = []
    for path in dataset["files"]:
        result = tally("ingest", str(path), "--report", "json", "--quiet", *sink, cwd=dataset["directory"])
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["rejected"] == 0 and report["accepted"] == len(dataset["lines"]), report
        reports.append(report)
    return reports


@pytest.fixture(scope="session")
def file_store(dataset) -> Path:
    """A file store holding every event twice (the file, then its shuffled copy)."""
    require_binary()
    data_dir = dataset["directory"] / "file-store"
    ingest(dataset, "--data-dir", str(data_dir))
    return data_dir


@pytest.fixture(scope="session")
def admin_url() -> str:
    url = os.environ.get("TALLY_TEST_DATABASE_URL", "")
    if url:
        return url
    if os.environ.get("TALLY_TEST_REQUIRE_DATABASE") == "1":
        pytest.fail("TALLY_TEST_REQUIRE_DATABASE=1 but TALLY_TEST_DATABASE_URL is empty (scripts/test.sh starts one)")
    pytest.skip("no TALLY_TEST_DATABASE_URL: scripts/test.sh starts a throwaway PostgreSQL for these tests")


@pytest.fixture(scope="session")
def postgres_store(admin_url: str, dataset):
    """A database of its own (`tally migrate`), the dataset ingested into it twice; dropped after."""
    import psycopg

    require_binary()
    name = "tally_reports_" + secrets.token_hex(6)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    try:
        migrate = tally("migrate", "--database-url", url)
        assert migrate.returncode == 0, migrate.stderr
        ingest(dataset, "--store", "postgres", "--database-url", url,
               "--data-dir", str(dataset["directory"] / "postgres-dead-letters"))
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def clickhouse_store(dataset):
    """The two-shard cluster of TALLY_TEST_CLICKHOUSE_URL (every node, comma-separated), emptied and
    migrated (`tally migrate --clickhouse`), the dataset ingested into it twice, once through each
    node: `--clickhouse-url` as given to the commands."""
    import urllib.request

    urls = os.environ.get("TALLY_TEST_CLICKHOUSE_URL", "")
    if not urls:
        if os.environ.get("TALLY_TEST_REQUIRE_CLICKHOUSE") == "1":
            pytest.fail("TALLY_TEST_REQUIRE_CLICKHOUSE=1 but TALLY_TEST_CLICKHOUSE_URL is empty")
        pytest.skip("no TALLY_TEST_CLICKHOUSE_URL: scripts/test.sh starts a throwaway two-shard ClickHouse")
    require_binary()
    nodes = urls.split(",")
    for node in nodes:
        urllib.request.urlopen(node + "/", data=b"DROP DATABASE IF EXISTS tally", timeout=60).read()
    migrate = tally("migrate", "--clickhouse", "--clickhouse-url", urls)
    assert migrate.returncode == 0, migrate.stderr
    for index, path in enumerate(dataset["files"]):
        node = nodes[index % len(nodes)]
        result = tally("ingest", str(path), "--report", "json", "--quiet", "--store", "clickhouse",
                       "--clickhouse-url", node, "--data-dir", str(dataset["directory"] / "clickhouse-dead-letters"),
                       cwd=dataset["directory"])
        assert result.returncode == 0, result.stderr
    return urls


# MARK: The dataset in the stores (runs before `tally report` exists)


def summary(*store: str) -> dict:
    result = tally("summary", "--format", "json", *store)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_file_store_holds_the_dataset_twice_and_counts_it_once(file_store, reference_store):
    answer = summary("--store", "file", "--data-dir", str(file_store))
    assert answer["total"]["events"] == len(reference_store.events)
    assert answer["estimated_total_events"] == reference.estimated(reference_store.events)
    assert answer["duplicates_skipped"] >= len(reference_store.events)
    assert sum(answer["identities"].values()) == len(reference_store.identities)


def test_postgres_holds_the_dataset_once(postgres_store, reference_store):
    answer = summary("--store", "postgres", "--database-url", postgres_store)
    assert answer["total"]["events"] == len(reference_store.events)
    assert answer["estimated_total_events"] == reference.estimated(reference_store.events)
    assert sum(answer["identities"].values()) == len(reference_store.identities)


def test_clickhouse_holds_the_dataset_once_with_each_actor_on_one_shard(clickhouse_store, reference_store):
    import urllib.request

    answer = summary("--store", "clickhouse", "--clickhouse-url", clickhouse_store)
    assert answer["total"]["events"] == len(reference_store.events)
    assert answer["estimated_total_events"] == reference.estimated(reference_store.events)
    assert sum(answer["identities"].values()) == len(reference_store.identities)
    actors = []
    for node in clickhouse_store.split(","):
        query = b"SELECT DISTINCT actor FROM tally.events_local WHERE actor != '' FORMAT TabSeparated"
        actors.append(set(urllib.request.urlopen(node + "/", data=query, timeout=60).read().decode().split("\n")) - {""})
    assert all(actors), "both shards hold events"
    assert not actors[0] & actors[1], "an actor's events sit on one shard"


# MARK: Every case on every store


def comparable(value):
    """Numbers as exact decimals (so 25.00 = 25 = 2.5e1), booleans apart from numbers."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float, Decimal)):
        return reference.to_decimal(value)
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items()}
    return value


def first_difference(expected, actual, path="$"):
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual:
                return f"{path}.{key}: missing (expected {expected[key]!r})"
            if key not in expected:
                return f"{path}.{key}: unexpected ({actual[key]!r})"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (left, right) in enumerate(zip(expected, actual)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: {len(actual)} items, expected {len(expected)}"
        return None
    return None if expected == actual else f"{path}: {actual!r}, expected {expected!r}"


def ratio_spellings(value, path="$"):
    """Ratios and shares not written with exactly 4 digits after the point."""
    wrong = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in RATIO_MEMBERS:
                for index, number in enumerate(item if isinstance(item, list) else [item]):
                    if number is not None and (not isinstance(number, Decimal)
                                               or number.as_tuple().exponent != -4):
                        wrong.append(f"{path}.{key}[{index}] = {number}")
            else:
                wrong += ratio_spellings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            wrong += ratio_spellings(item, f"{path}[{index}]")
    return wrong


def check_case(name: str, store: list[str], expected: dict) -> None:
    arguments = ["report", *cases.command(SPECS[name]), *store]
    result = tally(*arguments)
    shown = "tally " + " ".join(shlex.quote(argument) for argument in arguments)
    assert result.returncode == 0, f"{shown}\nexit {result.returncode}: {result.stderr}"
    actual = json.loads(result.stdout, parse_float=Decimal)
    assert isinstance(actual.pop("store", None), str), f"{shown}: no `store` member"
    # `report` echoes the definition as tally reads it (docs/reports.md, Output); the numbers are
    # what the stores must agree on.
    assert isinstance(actual.pop("report", None), dict), f"{shown}: no `report` member"
    expected = {key: value for key, value in expected.items() if key != "report"}
    assert not ratio_spellings(actual), f"{shown}: ratios need 4 digits after the point: {ratio_spellings(actual)}"
    difference = first_difference(comparable(expected), comparable(actual))
    assert difference is None, f"{shown}\n{difference}\nexpected: {reference.dumps(expected)[:4000]}"


@pytest.mark.parametrize("name", CASE_NAMES)
def test_file_store_answers_as_the_reference(name, report_command, file_store, reference_answers):
    check_case(name, ["--store", "file", "--data-dir", str(file_store)], reference_answers[name])


@pytest.mark.parametrize("name", CASE_NAMES)
def test_postgres_answers_as_the_reference(name, report_command, postgres_store, reference_answers):
    check_case(name, ["--store", "postgres", "--database-url", postgres_store], reference_answers[name])


@pytest.mark.parametrize("name", CASE_NAMES)
def test_clickhouse_answers_as_the_reference(name, report_command, clickhouse_store, reference_answers):
    check_case(name, ["--store", "clickhouse", "--clickhouse-url", clickhouse_store], reference_answers[name])
