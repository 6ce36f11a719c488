# shellcheck shell=bash
# A throwaway PostgreSQL for the tests of `squill import postgres://…` and
# `squill migrate`; sourced by scripts/test (after server.sh) and by
# scripts/testenv/with-postgres.
#
#   start_postgres  → - installs PostgreSQL from Debian packages when no initdb is
#                       found (in /usr/lib/postgresql/*/bin, then PATH); root only;
#                     - runs initdb and the server as the `postgres` system user
#                       (or as the caller when not root) in a fresh mktemp -d
#                       directory: listening on 127.0.0.1 only, on a free port,
#                       its unix socket in that directory; pg_stat_statements
#                       preloaded (track = top); fsync, synchronous_commit and
#                       full_page_writes off;
#                     - creates the role squill (LOGIN, password, pg_read_all_stats)
#                       and the databases, each with the extension pg_stat_statements,
#                       ANALYZEd, SELECT on all their tables granted to squill:
#                         shop    crates/squill/tests/fixtures/sql/shop.sql
#                         sakila  ../shared/data/sql/sakila/postgres-sakila-db/
#                         northwind, chinook  ../shared/data/sql/ (with sakila)
#                                 (when absent: a NOTICE and no sakila, or a
#                                 failure under CI=true)
#                       then resets pg_stat_statements;
#                     - exports (tests append the database: "$SQUILL_TEST_POSTGRES_URI/shop")
#                         SQUILL_TEST_POSTGRES_URI            postgres://squill:squill-test-secret@127.0.0.1:PORT
#                         SQUILL_TEST_POSTGRES_SUPERUSER_URI  postgres://postgres:RANDOM@127.0.0.1:PORT
#                       (host connections need the password: scram-sha-256);
#                     - puts stop_postgres in front of the EXIT trap already set
#                       (server.sh's, say), and starts a watchdog that does the
#                       same cleanup if this shell dies without running its
#                       trap (kill -9).
#                     Prints one line per step, with its time; returns 1 (after
#                     cleaning up) when a step fails, with the step's output.
#   stop_postgres   → stops that server (by its pid) and removes its directory.
#
# Installing writes /etc/postgresql-common/createcluster.d/squill-testenv.conf
# (create_main_cluster = false) first, so that the packages do not create and
# start a system cluster on port 5432; `pg_createcluster 15 main --start`
# creates it later if wanted.

_pg_dir=""
_pg_bindir=""
_pg_port=""
_pg_watchdog_pid=""
_pg_t0=""

# Microseconds since the epoch.
_pg_now() {
    local t="${EPOCHREALTIME:-}"
    if [[ -n "$t" ]]; then
        printf '%s' "${t/[.,]/}"
    else
        printf '%s000000' "$(date +%s)"
    fi
}

# "1.23 s" since the last _pg_now stored in _pg_t0.
_pg_elapsed() {
    local us=$(($(_pg_now) - _pg_t0))
    printf '%d.%02d s' $((us / 1000000)) $((us % 1000000 / 10000))
}

# _pg_step DESCRIPTION COMMAND… : runs COMMAND (in this shell), then prints
# DESCRIPTION and its time; prints the command's output when it fails or says
# anything.
_pg_step() {
    local what="$1" out out_file rc=0
    shift
    # In the server's directory once there is one, so that the watchdog removes it too.
    out_file="$(mktemp "${_pg_dir:-${TMPDIR:-/tmp}}/squill-postgres-step.XXXXXX")" || return 1
    _pg_t0="$(_pg_now)"
    "$@" >"$out_file" 2>&1 || rc=$?
    out="$(cat "$out_file")"
    rm -f "$out_file"
    if ((rc != 0)); then
        echo "testenv: postgres: $what failed (exit $rc, $(_pg_elapsed)):" >&2
        [[ -n "$out" ]] && printf '%s\n' "$out" | sed 's/^/    /' >&2
        return 1
    fi
    echo "testenv: postgres: $what ($(_pg_elapsed))"
    if [[ -n "$out" ]]; then
        echo "testenv: postgres: $what printed:" >&2
        printf '%s\n' "$out" | sed 's/^/    /' >&2
    fi
    return 0
}

# The bin directory of the newest PostgreSQL with an initdb, or nothing.
_pg_find_bindir() {
    local initdb
    initdb="$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)"
    if [[ ! -x "$initdb" ]]; then
        initdb="$(command -v initdb 2>/dev/null)" || return 1
        initdb="$(readlink -f "$initdb")"
    fi
    dirname "$initdb"
}

_pg_apt_install() {
    mkdir -p /etc/postgresql-common/createcluster.d \
        && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/squill-testenv.conf \
        && DEBIAN_FRONTEND=noninteractive apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            postgresql postgresql-contrib >/dev/null
}

# Runs a command as the postgres system user when root, else as the caller.
_pg_as_owner() {
    if ((EUID == 0)); then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

_pg_psql() {
    "$_pg_bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$_pg_dir" -p "$_pg_port" -U postgres "$@"
}

_pg_free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
        return
    fi
    local port
    for _ in $(seq 1 100); do
        port=$((20000 + RANDOM % 40000))
        if ! (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# _pg_teardown DIR : stops the server whose data directory is DIR/data (fast
# shutdown, then SIGKILL after 10 s) and removes DIR. Also run by the watchdog,
# as a separate process: it must use nothing but its argument.
_pg_teardown() {
    local dir="$1" pid=""
    [[ -n "$dir" && -d "$dir" ]] || return 0
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        read -r pid <"$dir/data/postmaster.pid" || true
    fi
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
        kill -INT "$pid" 2>/dev/null || true
        # Gone when its pid file is (a zombie still answers kill -0 until
        # reaped, which an init that reaps slowly delays).
        for _ in $(seq 1 200); do
            if [[ ! -f "$dir/data/postmaster.pid" ]] || ! kill -0 "$pid" 2>/dev/null; then
                break
            fi
            sleep 0.05
        done
        if [[ -f "$dir/data/postmaster.pid" ]]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$dir"
}

stop_postgres() {
    if [[ -n "$_pg_watchdog_pid" ]]; then
        kill "$_pg_watchdog_pid" 2>/dev/null || true
        wait "$_pg_watchdog_pid" 2>/dev/null || true
    fi
    _pg_watchdog_pid=""
    if [[ -n "$_pg_dir" ]]; then
        local pid=""
        if [[ -f "$_pg_dir/data/postmaster.pid" ]] && declare -F process_cpu >/dev/null; then
            read -r pid <"$_pg_dir/data/postmaster.pid" || true
            [[ "$pid" =~ ^[0-9]+$ ]] &&
                echo "testenv: postgres: the server and its finished backends used $(process_cpu "$pid") s of CPU"
        fi
        _pg_teardown "$_pg_dir" || true
        echo "testenv: postgres: stopped, $_pg_dir removed"
    fi
    _pg_dir=""
    unset SQUILL_TEST_POSTGRES_URI SQUILL_TEST_POSTGRES_SUPERUSER_URI
    return 0
}

# Puts stop_postgres in front of the current EXIT trap (once).
_pg_chain_exit_trap() {
    local -a words=()
    eval "words=($(trap -p EXIT))"
    local previous="${words[2]:-}"
    if [[ -z "$previous" ]]; then
        trap stop_postgres EXIT
    elif [[ "$previous" != *stop_postgres* ]]; then
        # shellcheck disable=SC2064 # the previous trap's text, expanded now on purpose
        trap "stop_postgres; $previous" EXIT
    fi
}

# A process in its own session (so that neither Ctrl-C nor a kill of this
# process group reaches it) that tears the server down once this shell is gone.
_pg_start_watchdog() {
    local shell_pid="$BASHPID" # here: in the background command below it is the child's
    # shellcheck disable=SC2016 # expanded by the watchdog's bash
    setsid bash -c "$(declare -f _pg_teardown)"'
        s=""
        trap '\''[[ -n "$s" ]] && kill "$s" 2>/dev/null; exit 0'\'' TERM
        while kill -0 "$1" 2>/dev/null; do
            sleep 1 & s=$!
            wait "$s"
            s=""
        done
        _pg_teardown "$2"' squill-postgres-watchdog "$shell_pid" "$_pg_dir" \
        </dev/null >/dev/null 2>&1 &
    _pg_watchdog_pid=$!
}

_pg_initdb() {
    _pg_as_owner "$_pg_bindir/initdb" -D "$_pg_dir/data" -U postgres -E UTF8 --locale=C \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >/dev/null || return 1
    cat >>"$_pg_dir/data/postgresql.conf" <<EOF || return 1

# scripts/testenv/postgres.sh (the port is given on the command line)
listen_addresses = '127.0.0.1'
unix_socket_directories = '$_pg_dir'
unix_socket_permissions = 0700
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = top
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    cat >"$_pg_dir/data/pg_hba.conf" <<'EOF'
# scripts/testenv/postgres.sh: the socket (in a 0700 directory) trusts; TCP wants a password.
local all all                trust
host  all all 127.0.0.1/32   scram-sha-256
EOF
}

# Starts the server on a free port, retrying with another port when the one
# found was taken in between.
_pg_start_server() {
    local attempt
    for attempt in 1 2 3; do
        _pg_port="$(_pg_free_port)" || return 1
        if _pg_as_owner "$_pg_bindir/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" \
            -o "-p $_pg_port" -w -t 60 start >/dev/null; then
            return 0
        fi
        if ((attempt < 3)) && grep -q 'could not bind\|Address already in use' "$_pg_dir/server.log"; then
            echo "port $_pg_port was taken, retrying"
            continue
        fi
        cat "$_pg_dir/server.log"
        return 1
    done
    return 1
}

_pg_create_roles() {
    local superuser_password="$1"
    _pg_psql -d postgres <<EOF
ALTER ROLE postgres PASSWORD '$superuser_password';
CREATE ROLE squill LOGIN PASSWORD 'squill-test-secret';
GRANT pg_read_all_stats TO squill;
EOF
}

_pg_create_database() {
    _pg_psql -d postgres -c "CREATE DATABASE $1" \
        && _pg_psql -d "$1" -c 'CREATE EXTENSION pg_stat_statements'
}

_pg_analyze_and_grant() {
    _pg_psql -d "$1" <<'EOF'
ANALYZE;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO squill;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO squill;
EOF
}

# Untracked itself, so that the view starts empty.
_pg_reset_statements() {
    _pg_psql -d shop -o /dev/null <<'EOF'
SET pg_stat_statements.track = none;
SELECT pg_stat_statements_reset();
EOF
}

# Fails after cleaning up, so that a failed start leaves nothing behind.
_pg_fail() {
    stop_postgres >/dev/null
    return 1
}

start_postgres() {
    local root sakila shop superuser_password
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    sakila="$root/../shared/data/sql/sakila/postgres-sakila-db"
    shop="$root/crates/squill/tests/fixtures/sql/shop.sql"
    local load_sakila=true
    if [[ ! -f "$sakila/postgres-sakila-schema.sql" || ! -f "$sakila/postgres-sakila-insert-data-using-copy.sql" ]]; then
        if [[ "${CI:-}" == "true" ]]; then
            echo "testenv: postgres: the sakila dump is missing from $sakila and CI=true" >&2
            return 1
        fi
        echo "NOTICE: testenv: postgres: no sakila dump in $sakila; database sakila not created, its tests will skip" >&2
        load_sakila=false
    fi

    if [[ -n "$_pg_dir" ]]; then
        echo "testenv: postgres: already started in $_pg_dir" >&2
        return 1
    fi

    if ! _pg_bindir="$(_pg_find_bindir)"; then
        if ((EUID != 0)) || ! command -v apt-get >/dev/null 2>&1; then
            echo "testenv: postgres: no initdb in /usr/lib/postgresql/*/bin nor PATH, and no way to install it (needs root and apt-get)" >&2
            return 1
        fi
        echo "testenv: postgres: no initdb found; installing postgresql and postgresql-contrib with apt-get (no system cluster: see createcluster.d/squill-testenv.conf)"
        _pg_step "apt-get update and install postgresql postgresql-contrib" _pg_apt_install || return 1
        _pg_bindir="$(_pg_find_bindir)" || {
            echo "testenv: postgres: still no initdb after installing" >&2
            return 1
        }
    fi
    if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
        echo "testenv: postgres: running as root but there is no postgres system user to run the server as" >&2
        return 1
    fi

    _pg_dir="$(mktemp -d -t squill-postgres.XXXXXX)" || return 1
    if ((EUID == 0)); then
        chown postgres: "$_pg_dir" || _pg_fail || return 1
    fi
    _pg_chain_exit_trap
    _pg_start_watchdog
    superuser_password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"

    _pg_step "initdb in $_pg_dir with $_pg_bindir" _pg_initdb || _pg_fail || return 1
    _pg_step "start the server (pg_ctl)" _pg_start_server || _pg_fail || return 1
    _pg_step "create role squill (LOGIN, pg_read_all_stats), password postgres" \
        _pg_create_roles "$superuser_password" || _pg_fail || return 1

    _pg_step "shop: create database, extension pg_stat_statements" _pg_create_database shop || _pg_fail || return 1
    _pg_step "shop: load ${shop#"$root/"}" _pg_psql -d shop -o /dev/null -f "$shop" || _pg_fail || return 1
    _pg_step "shop: ANALYZE, grant SELECT to squill" _pg_analyze_and_grant shop || _pg_fail || return 1

    if [[ "$load_sakila" == true ]]; then
        _pg_step "sakila: create database, extension pg_stat_statements" _pg_create_database sakila || _pg_fail || return 1
        _pg_step "sakila: load postgres-sakila-schema.sql" \
            _pg_psql -d sakila -o /dev/null -f "$sakila/postgres-sakila-schema.sql" || _pg_fail || return 1
        _pg_step "sakila: load postgres-sakila-insert-data-using-copy.sql" \
            _pg_psql -d sakila -o /dev/null -f "$sakila/postgres-sakila-insert-data-using-copy.sql" || _pg_fail || return 1
        _pg_step "sakila: ANALYZE, grant SELECT to squill" _pg_analyze_and_grant sakila || _pg_fail || return 1
        # Two more schemas for migrate's round trip (shared data as well).
        local sql="$root/../shared/data/sql"
        _pg_step "northwind: create database, extension pg_stat_statements" _pg_create_database northwind || _pg_fail || return 1
        _pg_step "northwind: load northwind.sql" \
            _pg_psql -d northwind -o /dev/null -f "$sql/northwind/northwind.sql" || _pg_fail || return 1
        _pg_step "northwind: ANALYZE, grant SELECT to squill" _pg_analyze_and_grant northwind || _pg_fail || return 1
        # The Chinook script drops and creates database chinook itself.
        _pg_step "chinook: load Chinook_PostgreSql.sql (creates the database)" \
            _pg_psql -d postgres -o /dev/null -f "$sql/chinook/ChinookDatabase/DataSources/Chinook_PostgreSql.sql" || _pg_fail || return 1
        _pg_step "chinook: extension pg_stat_statements" \
            _pg_psql -d chinook -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" || _pg_fail || return 1
        _pg_step "chinook: ANALYZE, grant SELECT to squill" _pg_analyze_and_grant chinook || _pg_fail || return 1
    fi
    _pg_step "reset pg_stat_statements" _pg_reset_statements || _pg_fail || return 1

    export SQUILL_TEST_POSTGRES_URI="postgres://squill:squill-test-secret@127.0.0.1:$_pg_port"
    export SQUILL_TEST_POSTGRES_SUPERUSER_URI="postgres://postgres:$superuser_password@127.0.0.1:$_pg_port"
    echo "testenv: postgres: ready at postgres://squill:***@127.0.0.1:$_pg_port (SQUILL_TEST_POSTGRES_URI; superuser: SQUILL_TEST_POSTGRES_SUPERUSER_URI)"
}
