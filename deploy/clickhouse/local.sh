#!/usr/bin/env bash
# A throwaway two-shard ClickHouse on loopback ports (Debian's clickhouse-server), data under DIR:
#   eval "$(deploy/clickhouse/local.sh start /tmp/tally-ch)"   # exports TALLY_CLICKHOUSE_URL
#   deploy/clickhouse/local.sh stop /tmp/tally-ch
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/clickhouse.sh
root="${2:-/tmp/tally-clickhouse}"
case "${1:-}" in
    start)
        tally_ch_start "$root" >&2
        echo "export TALLY_CH_ROOT=$root TALLY_CLICKHOUSE_URL=$TALLY_CH_URL,$TALLY_CH_URL2"
        ;;
    stop) TALLY_CH_ROOT="$root" tally_ch_stop ;;
    *) echo "usage: $0 start|stop [DIR]" >&2; exit 64 ;;
esac
