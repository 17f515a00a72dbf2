#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds with warnings as
# errors, starts a throwaway PostgreSQL (never the machine's own on 5432), runs every test, stops it.
#
#   scripts/test.sh            everything: unit, PostgreSQL, process, fault and delivery tests, then the
#                              concurrency tests again under ThreadSanitizer
#   scripts/test.sh --filter X passes the rest to `swift test` (no ThreadSanitizer pass, no pytest suites)
#   scripts/test.sh --collector [PYTEST ARGS]   only the collector tests (Tests/collector, pytest: real
#                              Segment/PostHog clients, faults, hostile traffic, TLS proxy, deploy units)
#   scripts/test.sh --delivery [PYTEST ARGS]    only the app-delivery tests (Tests/delivery, pytest:
#                              episode-demo's outbox and uploader against tally serve, behind a fault proxy)
#   scripts/test.sh --reports [PYTEST ARGS]     only the report tests (Tests/reports, pytest: every report on
#                              the file store and PostgreSQL against a reference written from docs/reports.md)
#   scripts/test.sh --clickhouse [PYTEST ARGS]  only the ClickHouse tests: the Swift TallyClickHouseTests, the report
#                              cases on ClickHouse and Tests/clickhouse (pytest: collectors and ingests into a
#                              throwaway two-shard cluster, faults)
#   scripts/test.sh --dashboard [PYTEST ARGS]   only the dashboard tests (Tests/dashboard, pytest: tally dashboard
#                              in headless Chromium over both stores; screenshots in .build/artifacts/dashboard)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
source scripts/lib/python.sh
source scripts/lib/clickhouse.sh
collector_only=""
delivery_only=""
reports_only=""
dashboard_only=""
clickhouse_only=""
if [ "${1:-}" = "--collector" ]; then
    collector_only=1
    shift
elif [ "${1:-}" = "--delivery" ]; then
    delivery_only=1
    shift
elif [ "${1:-}" = "--reports" ]; then
    reports_only=1
    shift
elif [ "${1:-}" = "--clickhouse" ]; then
    clickhouse_only=1
    shift
elif [ "${1:-}" = "--dashboard" ]; then
    dashboard_only=1
    shift
fi
# One of the pytest suites alone: no Swift tests, no other suite.
only="$collector_only$delivery_only$reports_only$dashboard_only$clickhouse_only"

tally_find_swift
tally_install_system_packages
tally_collector_tools
tally_browser_tools
tally_python_env

tally_log "checking formatting (swift format, .swift-format)"
swift format lint --strict -r Package.swift Sources Tests Examples Benchmarks

# One build serves the build check, the documentation and the tests: the symbol graphs DocC needs
# are emitted by this same compilation (the compiler's -emit-symbol-graph), and `swift test` runs
# what it built (--skip-build). Another `swift build` or `swift package dump-symbol-graph` with
# different flags would recompile every target, and `swift test` then once more.
graphs="$PWD/.build/symbol-graphs"
mkdir -p "$graphs"
tally_log "building (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
tally_log "building the DocC documentation (warnings are errors)"
scripts/docs.sh --symbol-graphs "$graphs"

work=$(mktemp -d /tmp/tally-test.XXXXXX)
chmod 755 "$work"  # the server may run as the postgres user
cleanup() {
    tally_ch_stop
    tally_pg_stop
    rm -rf "$work"
}
trap cleanup EXIT
tally_log "starting a throwaway PostgreSQL"
tally_pg_start "$work/postgres"
tally_log "PostgreSQL on 127.0.0.1:$TALLY_PG_PORT ($work/postgres)"

if [ -z "$only" ] || [ -n "$reports_only$clickhouse_only" ]; then
    # Two shards of Debian's clickhouse-server on loopback ports of their own (never a system instance).
    tally_log "starting a throwaway two-shard ClickHouse"
    tally_ch_start "$work/clickhouse"
    tally_log "ClickHouse $TALLY_CH_VERSION on $TALLY_CH_URL and $TALLY_CH_URL2 ($work/clickhouse)"
    export TALLY_TEST_CLICKHOUSE_URL="$TALLY_CH_URL,$TALLY_CH_URL2"
    export TALLY_TEST_REQUIRE_CLICKHOUSE=1
fi

export TALLY_CONFORMANCE_DIR="${TALLY_CONFORMANCE_DIR:-$(cd .. && pwd)/shared/external-data}"
# Every conformance test runs here: one whose data is missing fails instead of skipping.
export TALLY_TEST_REQUIRE_CONFORMANCE=1
# Every PostgreSQL test runs here: one that finds no database fails instead of skipping.
export TALLY_TEST_REQUIRE_DATABASE=1
if [ -z "$only" ]; then
    tally_log "running the tests"
    swift test --skip-build "$@"
fi
if { [ $# -eq 0 ] && [ -z "$only" ]; } || [ -n "$reports_only" ]; then
    # Every report kind and mode on the file store and PostgreSQL, against Tests/reports/reference.py.
    tally_log "running the report tests (Tests/reports, pytest)"
    TALLY_BIN="$PWD/.build/debug/tally" "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs Tests/reports "$@"
fi
if { [ $# -eq 0 ] && [ -z "$only" ]; } || [ -n "$clickhouse_only" ]; then
    # ClickHouse as the distributed store: the Swift suites, the report cases, collectors and faults.
    tally_log "running the ClickHouse tests"
    # The full run ran the Swift suites and the report cases above already.
    if [ -n "$clickhouse_only" ]; then
        swift test --skip-build --filter 'TallyClickHouseTests'
        TALLY_BIN="$PWD/.build/debug/tally" "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs \
            Tests/reports -k clickhouse "$@"
    fi
    if [ -d Tests/clickhouse ]; then
        TALLY_BIN="$PWD/.build/debug/tally" "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs Tests/clickhouse "$@"
    fi
fi
if { [ $# -eq 0 ] && [ -z "$only" ]; } || [ -n "$dashboard_only" ]; then
    # tally dashboard as a process in headless Chromium (Selenium) over both stores; hostile input.
    tally_log "running the dashboard tests (Tests/dashboard, pytest)"
    TALLY_BIN="$PWD/.build/debug/tally" "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs Tests/dashboard "$@"
fi
if { [ $# -eq 0 ] && [ -z "$only" ]; } || [ -n "$collector_only" ]; then
    # The collector as a process under real clients and hostile traffic, on the same cluster (each
    # test makes its own database); the PostgreSQL restart test restarts this cluster.
    tally_log "running the collector tests (Tests/collector, pytest)"
    TALLY_BIN="$PWD/.build/debug/tally" "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs Tests/collector "$@"
fi
if { [ $# -eq 0 ] && [ -z "$only" ]; } || [ -n "$delivery_only" ]; then
    # episode-demo in app mode (the outbox and its uploader) as a process against the collector,
    # behind a proxy that answers 413/429/500, resets or stalls; kill -9, outages, a full tmpfs.
    tally_log "running the delivery tests (Tests/delivery, pytest)"
    TALLY_BIN="$PWD/.build/debug/tally" TALLY_EPISODE_DEMO="$PWD/.build/debug/episode-demo" \
        "$TALLY_PYTHON" -m pytest -p no:cacheprovider -q -rs Tests/delivery "$@"
fi
if [ $# -eq 0 ] && [ -z "$only" ]; then
    # The concurrency-heavy targets under ThreadSanitizer (a race report fails the run).
    # TallyDeliveryTests: the outbox shared by threads and instances, the uploader.
    # TallyServerTests: the group committer, the router, and `tally serve` as a
    # process (built with TSan too, so a race in the collector aborts it) against this cluster.
    # TALLY_SANITIZE_THREAD=1 (Package.swift) instruments this package's targets only, in this same
    # build directory and with the same flags, so the dependencies are not compiled a second time
    # (`swift test --sanitize=thread` rebuilt everything: 9 more minutes). The next plain build
    # recompiles this package's targets (about 3 minutes).
    tally_log "building this package's targets with ThreadSanitizer"
    TALLY_SANITIZE_THREAD=1 swift build --build-tests -Xswiftc -warnings-as-errors \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
    tally_log "running the pipeline, file store, ingest and replay, tracking and collector tests under ThreadSanitizer"
    TALLY_SANITIZE_THREAD=1 TSAN_OPTIONS="halt_on_error=1" swift test --skip-build \
        --filter 'TallyPipelineTests|TallyFileStoreTests|TallyOperationsTests|TrackingMocksTests|EpisodeFeatureTests|TallyServerTests|TallyDeliveryTests'
fi
tally_log "all tests passed"
