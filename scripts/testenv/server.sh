# Starts SecantusDB (a MongoDB-compatible server from PyPI) on free loopback
# ports with in-memory storage, for the tests; sourced by scripts/test.
#   start_server VENV [N] → starts N servers (default SQUILL_TEST_SECANTUS_SERVERS,
#                    else 2) side by side, exports SQUILL_TEST_MONGODB_URI (the
#                    first) and SQUILL_TEST_MONGODB_URIS (all, space-separated)
#                    once each answers a ping, and installs an EXIT trap that
#                    stops them (tests failing or not)
#   stop_server    → stops the servers this shell started (by their pids only)
#
# Why several: SecantusDB is one Python process, and its CPU is bounded by
# one core (the GIL). The tests that keep it busy run at most two at a time
# per server (more clients on one process only add contention: BENCHMARKS.md,
# "Test suite time (issue 47)", session 36), and with one server those two
# lanes were the whole run's critical path: in a clean clone at 48a86b30 the
# other tests were done at 190 s and the two lanes ran alone until 287 s.
# testenv/test-cpu gives each test of nextest's `secantusdb` group the
# server of its group slot (slot modulo the servers), so each server still
# sees at most two of those tests at once (BENCHMARKS.md, "Two SecantusDB
# servers").

_secantus_pids=()
_secantus_logs=()
_secantus_uris=()

stop_server() {
    local i pid total=0 cpu
    for i in "${!_secantus_pids[@]}"; do
        pid="${_secantus_pids[$i]}"
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            if declare -F process_cpu >/dev/null; then
                cpu="$(process_cpu "$pid")"
                echo "testenv: SecantusDB $((i + 1)) used ${cpu:-0} s of CPU"
                total="$(awk -v a="$total" -v b="${cpu:-0}" 'BEGIN { printf "%.1f", a + b }')"
            fi
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -9 "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
        [[ -n "${_secantus_logs[$i]:-}" ]] && rm -f "${_secantus_logs[$i]}"
    done
    if [[ "${#_secantus_pids[@]}" -gt 1 ]] && declare -F process_cpu >/dev/null; then
        echo "testenv: SecantusDB used $total s of CPU (${#_secantus_pids[@]} servers)"
    fi
    _secantus_pids=()
    _secantus_logs=()
}

# _launch_server VENV → starts one server in the background; its pid, log and
# URI are appended to _secantus_pids, _secantus_logs and _secantus_uris.
_launch_server() {
    local venv="$1"
    local port log
    port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    log="$(mktemp -t secantusd.XXXXXX.log)"
    # An 8 GB WiredTiger cache, not the default 1 GB. WiredTiger evicts
    # (reconciles) pages once the dirty data and updates in its cache pass
    # a few per cent of it. In a profile of the server over the whole suite
    # at 1 GB, WiredTiger took 32.7 % of the samples, reconciling and
    # evicting pages (__wt_rec_*, __evict_*, page walks) 21.8 %, while the
    # data stays small (41 MB after the server tests). The 43
    # SecantusDB-backed tests, side by side as in the suite, one size after
    # the other under the same load: 194.8 s of the server's CPU at 1 GB
    # against 129.0 s at 4 GB; 123.1 s at 4 GB against 115.7 s at 8 GB. Its
    # peak memory stayed at 0.7 GB (BENCHMARKS.md, "SecantusDB's cache").
    # An oplog without the default cap of 100,000 entries: past the cap,
    # every write also deletes the oldest entry. The suite writes more than
    # that, and no test reads the oplog (the server keeps one as the
    # replica set the drivers' transactions need). The 43 tests, two runs
    # each, alternated:
    # 113.7 and 122.5 s of the server's CPU with the cap, 100.7 and 109.2 s
    # without it; peak memory 0.69 GB against 1.16 GB (BENCHMARKS.md,
    # "SecantusDB's oplog").
    "$venv/bin/secantusd-py" --host 127.0.0.1 --port "$port" --storage-path :memory: \
        --cache-size 8G --oplog-max-entries 1000000000 \
        >"$log" 2>&1 &
    _secantus_pids+=("$!")
    _secantus_logs+=("$log")
    _secantus_uris+=("mongodb://127.0.0.1:$port/?directConnection=true")
}

start_server() {
    local venv="$1"
    local count="${2:-${SQUILL_TEST_SECANTUS_SERVERS:-2}}"
    local i uri pid ready
    _secantus_uris=()
    trap stop_server EXIT
    for ((i = 0; i < count; i++)); do
        _launch_server "$venv"
    done
    for i in "${!_secantus_pids[@]}"; do
        pid="${_secantus_pids[$i]}"
        uri="${_secantus_uris[$i]}"
        ready=""
        for _ in $(seq 1 120); do
            if ! kill -0 "$pid" 2>/dev/null; then
                echo "testenv: SecantusDB exited while starting:" >&2
                cat "${_secantus_logs[$i]}" >&2
                return 1
            fi
            if "$venv/bin/python" - "$uri" <<'PY' 2>/dev/null; then
import sys
from pymongo import MongoClient
MongoClient(sys.argv[1], serverSelectionTimeoutMS=500).admin.command("ping")
PY
                echo "testenv: SecantusDB answers at $uri (pid $pid)"
                ready=1
                break
            fi
            sleep 0.5
        done
        if [[ -z "$ready" ]]; then
            echo "testenv: SecantusDB did not answer within 60 s:" >&2
            cat "${_secantus_logs[$i]}" >&2
            return 1
        fi
    done
    export SQUILL_TEST_MONGODB_URI="${_secantus_uris[0]}"
    export SQUILL_TEST_MONGODB_URIS="${_secantus_uris[*]}"
    return 0
}
