# Starts SecantusDB (a MongoDB-compatible server from PyPI) on a free loopback
# port with in-memory storage, for the tests; sourced by scripts/test.
#   start_server   → exports SQUILL_TEST_MONGODB_URI once the server answers a ping,
#                    and installs an EXIT trap that stops it (tests failing or not)
#   stop_server    → stops the server this shell started (by its pid only)

_secantus_pid=""
_secantus_log=""

stop_server() {
    if [[ -n "$_secantus_pid" ]] && kill -0 "$_secantus_pid" 2>/dev/null; then
        if declare -F process_cpu >/dev/null; then
            echo "testenv: SecantusDB used $(process_cpu "$_secantus_pid") s of CPU"
        fi
        kill "$_secantus_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$_secantus_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$_secantus_pid" 2>/dev/null || true
        wait "$_secantus_pid" 2>/dev/null || true
    fi
    _secantus_pid=""
    [[ -n "$_secantus_log" ]] && rm -f "$_secantus_log"
    _secantus_log=""
}

start_server() {
    local venv="$1"
    local port
    port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    _secantus_log="$(mktemp -t secantusd.XXXXXX.log)"
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
        >"$_secantus_log" 2>&1 &
    _secantus_pid=$!
    trap stop_server EXIT
    local uri="mongodb://127.0.0.1:$port/?directConnection=true"
    for _ in $(seq 1 120); do
        if ! kill -0 "$_secantus_pid" 2>/dev/null; then
            echo "testenv: SecantusDB exited while starting:" >&2
            cat "$_secantus_log" >&2
            return 1
        fi
        if "$venv/bin/python" - "$uri" <<'PY' 2>/dev/null; then
import sys
from pymongo import MongoClient
MongoClient(sys.argv[1], serverSelectionTimeoutMS=500).admin.command("ping")
PY
            export SQUILL_TEST_MONGODB_URI="$uri"
            echo "testenv: SecantusDB answers at $uri (pid $_secantus_pid)"
            return 0
        fi
        sleep 0.5
    done
    echo "testenv: SecantusDB did not answer within 60 s:" >&2
    cat "$_secantus_log" >&2
    return 1
}
