#!/bin/sh
# The generate bench with the disk's write rate capped: at which disk speed
# does generation keep up with the disk?
#
#     sudo crates/squill/benches/generate-throttled.sh [MB/s ...]   (default: 500 1000 1500 2000 0)
#
# For each rate (0: no cap), the bench's two direct steps (generation with
# --direct, and a plain direct write of the same bytes) run in a cgroup whose
# writes to the bench directory's disk are capped at that many MB/s. Only
# direct writes: cgroup v1 does not charge the kernel's own write-back to the
# program that dirtied the pages, so a cap would miss the page-cache steps.
#
# Needs root and the blkio controller (cgroup v1), or the io controller
# (cgroup v2) enabled for the root's children. Linux only. Only the cgroup v1
# path has been run (this project's machine has no v2 io controller). Extra bench
# settings pass through the environment (SQUILL_BENCH_ROUNDS, _BYTES, _DIR).
set -eu

rates=${*:-500 1000 1500 2000 0}
dir=${SQUILL_BENCH_DIR:-target/bench-generate}
mkdir -p "$dir"

# The disk under the bench directory, as MAJOR:MINOR; a partition's disk.
dev=$(findmnt -no MAJ:MIN -T "$dir" | tr -d ' ')
if [ -e "/sys/dev/block/$dev/partition" ]; then
    dev=$(cat "/sys/dev/block/$dev/../dev")
fi

if [ -d /sys/fs/cgroup/blkio ]; then
    group=/sys/fs/cgroup/blkio/squill-bench-$$
    cap() { echo "$dev $1" >"$group/blkio.throttle.write_bps_device"; }
    uncap() { echo "$dev 0" >"$group/blkio.throttle.write_bps_device"; }
elif grep -qw io /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    group=/sys/fs/cgroup/squill-bench-$$
    cap() { echo "$dev wbps=$1" >"$group/io.max"; }
    uncap() { echo "$dev wbps=max" >"$group/io.max"; }
else
    echo "generate-throttled: no blkio (cgroup v1) or io (cgroup v2) controller here" >&2
    exit 2
fi
mkdir "$group"
# Back to the root group and the group removed, however the script ends.
trap 'echo $$ >"${group%/*}/cgroup.procs" 2>/dev/null; rmdir "$group" 2>/dev/null' EXIT

# Built outside the cap, so that only the bench runs inside it.
cargo bench -p squill --features fixtures --bench generate --no-run

for rate in $rates; do
    if [ "$rate" -gt 0 ]; then
        cap $((rate * 1000000))
        echo "== writes to $dev capped at $rate MB/s"
    else
        uncap
        echo "== writes to $dev not capped"
    fi
    echo $$ >"$group/cgroup.procs"
    SQUILL_BENCH_STEPS=gen-direct,plain-direct \
        cargo bench -p squill --features fixtures --bench generate
    echo $$ >"${group%/*}/cgroup.procs"
done
