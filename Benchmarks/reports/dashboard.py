#!/usr/bin/env python3
"""The dashboard's speed on PostgreSQL: each page against the CLI reports it shows.

    python3 Benchmarks/reports/dashboard.py TALLY READER_URL POSTMASTER_PID_FILE [LOADS [CLI_ROUNDS [PAGES]]]

Starts `tally dashboard` on the reader URL (any free port, a long time limit so that slow pages are
measured rather than cut), then for each page: LOADS loads (20) over loopback, interleaved with
CLI_ROUNDS runs (5) of the `tally report` commands that give the page's panels (PAGES: some of
overview,events,funnels,retention). Prints per page its
time at p95 and median (the time to the last byte: on loopback, the server's time), its size, the
CLI reports' time (the sum of each command's median, whole processes) and the ratio, and beside
them the CPU time per load: the dashboard's and PostgreSQL's backends' (from /proc), against the
CLI commands' own and PostgreSQL's.
"""

import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request

TREND = ["report", "trends"]
STEPS = ["episode_list_viewed", "episode_list_episode_selected", "player_opened", "player_completed"]
DROPS = ["dropped_queue", "dropped_caps", "dropped_disk_full", "corrupt_events", "dead_lettered_events"]

# Each page: its path, and the CLI commands giving its panels (tally arguments; --last 30d and the
# store are added). The overview's data quality panel also reads tally.failed_events.
PAGES = [
    ("overview", "/", [
        TREND + ["--by", "feature", "--top", "8", "--interval", "day"],
        TREND + ["--measure", "actors", "--interval", "day"],
        TREND + ["--measure", "actors", "--interval", "week"],
        TREND + ["--measure", "actors", "--interval", "month"],
        TREND + ["--by", "name", "--top", "10", "--compare", "--interval", "month"],
    ] + [TREND + ["--event", "outbox_diagnostics", "--measure", f"sum:{c}", "--interval", "month"] for c in DROPS]),
    ("events", "/events?event=episode_list_viewed", [
        TREND + ["--by", "name", "--top", "100000", "--interval", "month"],
        TREND + ["--event", "episode_list_viewed", "--measure", "count", "--interval", "day"],
    ]),
    ("events, by platform", "/events?event=episode_list_viewed&by=context.platform", [
        TREND + ["--by", "name", "--top", "100000", "--interval", "month"],
        TREND + ["--event", "episode_list_viewed", "--measure", "count", "--interval", "day"],
        ["report", "breakdown", "--event", "episode_list_viewed", "--by", "context.platform", "--top", "20"],
        TREND + ["--event", "episode_list_viewed", "--interval", "day", "--by", "context.platform", "--top", "6"],
    ]),
    ("funnels", "/funnels?" + "&".join(f"step={s}" for s in STEPS) + "&window=7d", [
        ["report", "funnel"] + [a for s in STEPS for a in ("--step", s)] + ["--window", "7d"],
    ]),
    ("retention", "/retention?start=app_opened&return=player_opened&period=day&periods=30", [
        ["report", "retention", "--start", "app_opened", "--return", "player_opened", "--period", "day",
         "--periods", "30"],
    ]),
]


def ticks(pid: int) -> int:
    """CPU clock ticks of a process and the children it reaped."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(x) for x in fields[11:15])


def postgres_ticks(postmaster: int) -> int:
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
    return ticks(postmaster) + sum(ticks(int(c)) for c in children)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> int:
    tally, reader, pidfile = sys.argv[1], sys.argv[2], sys.argv[3]
    loads = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    cli_rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    only = sys.argv[6].split(",") if len(sys.argv) > 6 else None
    hertz = os.sysconf("SC_CLK_TCK")
    postmaster = int(open(pidfile).readline())
    store = ["--store", "postgres", "--database-url", reader]
    with socket.socket() as probe:  # a free port (the dashboard's own line is buffered in a pipe)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [tally, "dashboard", "--port", str(port), "--time-limit", "300"] + store,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("error: tally dashboard did not start")
        print(f"Dashboard pages on PostgreSQL (last 30 days of the data): {loads} loads each (p95, median),")
        print(f"against the CLI reports each page shows ({cli_rounds} runs of each command, medians summed);")
        print("CPU per load: the dashboard's + PostgreSQL's, against the commands' own + PostgreSQL's")
        for title, path, commands in PAGES:
            if only and title.split(",")[0] not in only:
                continue
            url = base + path + ("&" if "?" in path else "?") + "last=30d"
            times, sizes, page_cpu, page_pg = [], [], 0.0, 0.0
            cli: list[list[float]] = [[] for _ in commands]
            cli_cpu, cli_pg = 0.0, 0.0

            def load() -> None:
                nonlocal page_cpu, page_pg
                before, pg_before = ticks(server.pid), postgres_ticks(postmaster)
                start = time.perf_counter()
                with urllib.request.urlopen(url, timeout=600) as response:
                    body = response.read()
                times.append(time.perf_counter() - start)
                page_cpu += (ticks(server.pid) - before) / hertz
                page_pg += (postgres_ticks(postmaster) - pg_before) / hertz
                sizes.append(len(body))
                if b'class="error"' in body:
                    print(f"  warning: {title}: a panel failed", file=sys.stderr)

            def run_cli() -> None:
                nonlocal cli_cpu, cli_pg
                for index, command in enumerate(commands):
                    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
                    pg_before = postgres_ticks(postmaster)
                    start = time.perf_counter()
                    subprocess.run([tally] + command + store + ["--last", "30d", "--format", "json"],
                                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    cli[index].append(time.perf_counter() - start)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cli_cpu += after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime
                    cli_pg += (postgres_ticks(postmaster) - pg_before) / hertz

            load()  # a first load warms the server's connection; not counted
            times.clear(); sizes.clear(); page_cpu = page_pg = 0.0
            every = max(1, loads // cli_rounds)
            for index in range(loads):
                load()
                if index % every == every - 1 and len(cli[0]) < cli_rounds:
                    run_cli()
            while len(cli[0]) < cli_rounds:
                run_cli()
            reference = sum(quantile(c, 0.5) for c in cli)
            p95 = quantile(times, 0.95)
            print(f"  {title:<22} p95 {p95 * 1000:8.0f} ms (median {quantile(times, 0.5) * 1000:.0f}, "
                  f"{min(times) * 1000:.0f}–{max(times) * 1000:.0f}); {max(sizes) / 1024:.0f} KB; "
                  f"CLI {reference * 1000:.0f} ms in {len(commands)} command(s) → {p95 / reference:.2f}× "
                  f"(target ≤ 1.2×); CPU per load {page_cpu / loads:.2f} + {page_pg / loads:.2f} s against "
                  f"{cli_cpu / cli_rounds:.2f} + {cli_pg / cli_rounds:.2f} s")
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
