# A throwaway two-shard ClickHouse cluster: two clickhouse-server processes (Debian's package) on
# loopback ports of their own, each with its data under one directory, both knowing the cluster
# `tally` (shard 1, shard 2; no replicas, no ZooKeeper). Shared by scripts/test.sh, the benchmark
# and deploy/clickhouse/local.sh.
# shellcheck shell=bash

# tally_ch_install: Debian's clickhouse-server and clickhouse-client when missing.
tally_ch_install() {
    case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin" ;; esac
    command -v clickhouse-server >/dev/null 2>&1 && command -v clickhouse-client >/dev/null 2>&1 && return 0
    command -v dpkg-query >/dev/null 2>&1 || {
        echo "error: clickhouse-server is missing (Debian: apt-get install clickhouse-server clickhouse-client)" >&2
        return 1
    }
    tally_apt_install clickhouse-server clickhouse-client
}

# tally_ch_free_port: a free TCP port on loopback.
tally_ch_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# tally_ch_write_config DIR SHARD HTTP TCP INTERSERVER TCP1 TCP2: the configuration of one shard.
tally_ch_write_config() {
    local dir="$1" shard="$2" http="$3" tcp="$4" interserver="$5" tcp1="$6" tcp2="$7"
    mkdir -p "$dir/data" "$dir/tmp" "$dir/log" "$dir/user_files" "$dir/format_schemas"
    cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/server.log</log>
        <errorlog>$dir/log/error.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <http_port>$http</http_port>
    <tcp_port>$tcp</tcp_port>
    <interserver_http_port>$interserver</interserver_http_port>
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <listen_host>127.0.0.1</listen_host>
    <max_connections>1024</max_connections>
    <keep_alive_timeout>10</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <remote_servers>
        <tally>
            <shard><replica><host>127.0.0.1</host><port>$tcp1</port></replica></shard>
            <shard><replica><host>127.0.0.1</host><port>$tcp2</port></replica></shard>
        </tally>
    </remote_servers>
    <macros><shard>$shard</shard></macros>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
    <merge_tree>
        <parts_to_delay_insert>300</parts_to_delay_insert>
        <parts_to_throw_insert>600</parts_to_throw_insert>
    </merge_tree>
</yandex>
XML
    cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
        </default>
        <readonly><readonly>1</readonly></readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
}

# tally_ch_start ROOT: creates and starts the two shards under ROOT; exports TALLY_CH_ROOT,
# TALLY_CH_URL (shard 1's HTTP interface), TALLY_CH_URL2 (shard 2's) and TALLY_CH_VERSION.
tally_ch_start() {
    local root="$1" shard http tcp interserver
    tally_ch_install || return 1
    mkdir -p "$root"
    local tcp1 tcp2
    tcp1=$(tally_ch_free_port)
    tcp2=$(tally_ch_free_port)
    while [ "$tcp2" = "$tcp1" ]; do tcp2=$(tally_ch_free_port); done
    for shard in 1 2; do
        http=$(tally_ch_free_port)
        interserver=$(tally_ch_free_port)
        tcp=$tcp1
        [ "$shard" = 2 ] && tcp=$tcp2
        tally_ch_write_config "$root/shard$shard" "$shard" "$http" "$tcp" "$interserver" "$tcp1" "$tcp2"
        echo "$http" >"$root/shard$shard/http_port"
    done
    export TALLY_CH_ROOT="$root"
    for shard in 1 2; do tally_ch_launch "$shard" || return 1; done
    export TALLY_CH_URL="http://127.0.0.1:$(cat "$root/shard1/http_port")"
    export TALLY_CH_URL2="http://127.0.0.1:$(cat "$root/shard2/http_port")"
    TALLY_CH_VERSION=$(curl -sf "$TALLY_CH_URL/?query=SELECT%20version()" || echo unknown)
    export TALLY_CH_VERSION
    printf 'TALLY_CH_ROOT=%s\nTALLY_CH_URL=%s\nTALLY_CH_URL2=%s\nTALLY_CH_VERSION=%s\n' \
        "$root" "$TALLY_CH_URL" "$TALLY_CH_URL2" "$TALLY_CH_VERSION" >"$root/cluster.env"
}

# tally_ch_launch SHARD: starts one shard of the cluster under TALLY_CH_ROOT (again after a stop)
# and waits until it answers.
tally_ch_launch() {
    local dir="$TALLY_CH_ROOT/shard$1" port
    port=$(cat "$dir/http_port")
    clickhouse-server --config-file="$dir/config.xml" --pid-file="$dir/server.pid" --daemon >/dev/null 2>&1 ||
        { cat "$dir/log/error.log" >&2 2>/dev/null; return 1; }
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$port/ping" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "error: ClickHouse shard $1 did not start (log: $dir/log/error.log)" >&2
    tail -20 "$dir/log/error.log" >&2 2>/dev/null
    return 1
}

# tally_ch_kill SHARD: stops one shard at once (SIGKILL) and waits until it is gone.
tally_ch_kill() {
    local pidfile="$TALLY_CH_ROOT/shard$1/server.pid" pid
    [ -f "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    kill -9 "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$pidfile"
}

# tally_ch_stop: stops both shards (TERM, then KILL after 20 s).
tally_ch_stop() {
    [ -n "${TALLY_CH_ROOT:-}" ] || return 0
    local shard pidfile pid
    for shard in 1 2; do
        pidfile="$TALLY_CH_ROOT/shard$shard/server.pid"
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
}
