# shellcheck shell=bash
# Times the steps of scripts/test, so that a run says where its time went
# (BENCHMARKS.md, "Test suite time"); sourced by scripts/test.
#
#   step WHAT COMMAND…  → runs COMMAND in this shell (so that what it exports
#                         stays), then prints "testenv: WHAT: W s wall, C s CPU"
#                         and returns its status. CPU is user + sys of the
#                         processes it started and waited for.
#   step_start WHAT     → starts the clock of a step run some other way (in
#                         the background); step_done WHAT [FILE] prints its
#                         wall time, and the CPU time in FILE (what bash's
#                         `times` wrote in the process that ran it) when given.

_step_t0=""
_step_cpu0=""
_step_cpu_ms=0

# Microseconds since the epoch.
_step_now() {
    local t="${EPOCHREALTIME:-}"
    if [[ -n "$t" ]]; then
        printf '%s' "${t/[.,]/}"
    else
        printf '%s000000' "$(date +%s)"
    fi
}

# Milliseconds of CPU (user + sys) used so far by this shell's waited-for
# children, into _step_cpu_ms. (`times` in a $(…) would report the subshell's.)
_step_cpu() {
    local user sys _
    local file
    file="$(mktemp -t squill-steps.XXXXXX)" || return 1
    times >"$file"
    { read -r _ _; read -r user sys; } <"$file"
    rm -f "$file"
    _step_cpu_ms=$(($(_step_ms "$user") + $(_step_ms "$sys")))
}

# "1m2.345s" → 62345.
_step_ms() {
    local t="$1" m s
    m="${t%%m*}"
    s="${t#*m}"
    s="${s%s}"
    s="${s/,/.}"
    local whole="${s%%.*}" frac="${s#*.}000"
    [[ "$s" == *.* ]] || frac="000"
    echo $((10#$m * 60000 + 10#$whole * 1000 + 10#${frac:0:3}))
}

# Seconds with one decimal from milliseconds.
_step_s() {
    printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100))
}

step_start() {
    _step_t0="$(_step_now)"
    _step_cpu
    _step_cpu0="$_step_cpu_ms"
    echo "testenv: $1 ..."
}

step_done() {
    local wall_ms=$((($(_step_now) - _step_t0) / 1000)) cpu="" user sys _
    if [[ -n "${2:-}" && -s "$2" ]]; then
        { read -r _ _; read -r user sys; } <"$2"
        cpu=", $(_step_s $(($(_step_ms "$user") + $(_step_ms "$sys")))) s CPU"
    fi
    echo "testenv: $1: $(_step_s "$wall_ms") s wall$cpu"
}

step() {
    local what="$1" rc=0
    shift
    step_start "$what"
    "$@" || rc=$?
    local wall_ms=$((($(_step_now) - _step_t0) / 1000))
    _step_cpu
    local cpu_ms=$((_step_cpu_ms - _step_cpu0))
    if ((rc == 0)); then
        echo "testenv: $what: $(_step_s "$wall_ms") s wall, $(_step_s "$cpu_ms") s CPU"
    else
        echo "testenv: $what: failed (exit $rc) after $(_step_s "$wall_ms") s wall" >&2
    fi
    return "$rc"
}

# process_cpu PID → "12.3": seconds of CPU (user + sys) used by PID and by the
# children it has reaped, from /proc (nothing when PID is gone). The servers
# the tests share are started here, not by a step, so no step counts them;
# their stop prints this (BENCHMARKS.md, "Test suite time (issue 47)").
process_cpu() {
    local stat ticks
    local -a f
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    # Fields after the command's closing parenthesis: utime is the 12th,
    # stime, cutime, cstime the three after it.
    read -r -a f <<<"${stat##*) }"
    ticks="$(getconf CLK_TCK 2>/dev/null || echo 100)"
    awk -v t="$ticks" -v a="${f[11]}" -v b="${f[12]}" -v c="${f[13]}" -v d="${f[14]}" \
        'BEGIN { printf "%.1f", (a + b + c + d) / t }'
}
