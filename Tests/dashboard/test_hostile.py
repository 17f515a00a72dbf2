"""Hostile input: 10,000 requests with random paths, query strings and form values: every answer
is a page or a 4xx with a message, never a 5xx and never the store's own error text. And a report
past the time limit answers 503 with a message while other pages keep answering."""
import random
import string
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from client import get
from conftest import Dashboard, SINCE, UNTIL

PATHS = ["/", "/events", "/funnels", "/retention", "/plans", "/reports", "/reports/home", "/reports/nope",
         "/api/v1/report/trends", "/api/v1/report/breakdown", "/api/v1/report/funnel", "/api/v1/report/retention",
         "/api/v1/report/actors", "/api/v1/report/nope", "/api/v1/reports", "/api/v1/reports/home"]
NAMES = ["since", "until", "last", "tz", "feature", "where", "event", "measure", "interval", "by", "top", "compare",
         "step", "window", "order", "exclude", "start", "return", "period", "periods", "cohort_mode", "of", "reached",
         "dropped_after", "cohort", "offset", "value", "format", "index", "merge", "x"]
VALUES = ["", "0", "-1", "1", "99999999999999999999", "1e308", "NaN", "2026-03-01", "2026-13-45", "30d", "0d", "-5h",
          "99999w", "Europe/Paris", "Mars/Olympus", "player_opened", "a|b", "a where x > 3", "a where x ~ 3",
          "a where x in (", "'; DROP TABLE tally.events; --", "\" OR 1=1 --", "<script>alert(1)</script>", "%zz",
          "é漢字🙂", "\u0000", "x" * 5000, "context.app_version", "properties.speed", "count", "actors", "avg:speed",
          "p90:position", "hour", "week", "ordered", "strict", "unordered", "funnel", "retention", "breakdown", "csv",
          "json", "off", "first-time", "recurring", "search_viewed between 1 and 2", "x between 9 and 1"]
LEAKS = ["SQLSTATE", "syntax error at", "ERROR:", "relation \"", "PostgresError", "libpq", "Fatal error"]


def random_url(rng: random.Random) -> str:
    pairs = []
    for _ in range(rng.randint(0, 7)):
        name = rng.choice(NAMES) if rng.random() < 0.9 else "".join(rng.choices(string.printable, k=rng.randint(1, 8)))
        value = rng.choice(VALUES) if rng.random() < 0.8 else "".join(rng.choices(string.printable, k=rng.randint(0, 30)))
        pairs.append((name, value))
    query = urllib.parse.urlencode(pairs)
    if rng.random() < 0.05:
        query += "&%" + rng.choice(["zz", "4", "e9%", "C3%28"])  # broken escapes
    if rng.random() < 0.3:
        query += f"&since={SINCE}&until={UNTIL}"
    return rng.choice(PATHS) + ("?" + query if query else "")


@pytest.fixture(params=["file", "postgres"])
def empty_dashboard(request, keys, workdir, reports_dir):
    """A dashboard over an empty store: hostile input is about the requests, and an empty store
    answers each in milliseconds (10,000 of them over the dataset would take half an hour here)."""
    if request.param == "file":
        data = workdir / "empty-store"
        (data / "events").mkdir(parents=True, exist_ok=True)
        store = ["--store", "file", "--data-dir", str(data)]
    else:
        store = ["--store", "postgres", "--database-url", request.getfixturevalue("empty_postgres_url")]
    server = Dashboard(store, keys["file"], reports_dir)
    server.kind = request.param
    yield server
    assert server.stop() == 0, "\n".join(server.lines[-20:])


def test_ten_thousand_hostile_requests(empty_dashboard, keys):
    dashboard = empty_dashboard
    rng = random.Random(20261128)
    urls = [random_url(rng) for _ in range(10_000)]
    statuses: dict[int, int] = {}
    failures = []
    lock = threading.Lock()

    def fetch(url: str):
        status, _, body = get(dashboard.url + url, keys["reader"], timeout=120)
        text = body.decode("utf-8", "replace")
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            if status >= 500 or not (200 <= status < 300 or 400 <= status < 500):
                failures.append((url[:200], status, text[:300]))
            elif any(leak in text for leak in LEAKS):
                failures.append((url[:200], status, "leak: " + text[:300]))
            elif status >= 400 and not text.strip():
                failures.append((url[:200], status, "no message"))

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(fetch, urls))
    print(f"{dashboard.kind}: statuses {dict(sorted(statuses.items()))}")
    errors = [line for line in dashboard.lines if " error " in line or " critical " in line]
    assert not failures, (failures[:5], errors[-5:])
    assert statuses.get(200, 0) > 1000, statuses


def test_a_report_past_the_time_limit_answers_503_while_others_answer(keys, file_store, postgres_url):
    server = Dashboard(["--store", "postgres", "--database-url", postgres_url], keys["file"], None,
                       ["--time-limit", "0.001"])
    try:
        slow = f"/api/v1/report/funnel?since={SINCE}&until={UNTIL}&step=episode_list_viewed&step=player_opened"
        results = {}

        def ask(name, path):
            results[name] = get(server.url + path, keys["reader"])

        threads = [threading.Thread(target=ask, args=("slow", slow)),
                   threading.Thread(target=ask, args=("health", "/healthz")),
                   threading.Thread(target=ask, args=("form", "/funnels"))]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert time.monotonic() - started < 30
        status, headers, body = results["slow"]
        assert status == 503, body
        assert b"time limit" in body and headers.get("Retry-After")
        assert results["health"][0] == 200 and results["form"][0] == 200
        page = get(server.url + slow.replace("/api/v1/report/funnel", "/funnels"), keys["reader"])
        assert page[0] == 200 and b"time limit" in page[2], "a page shows the panel's message, not an error page"
    finally:
        assert server.stop() == 0
