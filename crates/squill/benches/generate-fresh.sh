#!/bin/sh
# `generate data --direct` against a plain direct write of the same bytes,
# each in a new process with the memory cold, as a user's run is.
#
#     crates/squill/benches/generate-fresh.sh [TRIOS]   (default 10)
#
# Why: the generate bench's plain write runs inside the bench process and
# keeps its stages (the buffers it writes from) from one round to the next,
# while generation's writer thread makes new ones every step. On this
# project's machine, faulting in fresh huge pages costs the writer about
# 60-75 ms of CPU per step (BENCHMARKS.md "generate"), a cost any new process
# pays. Here both sides pay it: per trio, one `squill generate data` run
# (host-logs, scale 9, --direct) and two runs of `plain_direct.py` writing as
# many bytes the way squill's direct writer does (with the copy into the
# stage, and without it: NOCOPY=1), with SQUILL_FRESH_SLEEP seconds (default
# 3) before each run so that memory freed by the last one has gone back to
# the host. Each side times itself without its process start-up: squill's
# own "bytes in ... s" (data::write), the script's seconds.
#
# Needs a release build (cargo build --release -p squill-cli; SQUILL_BIN
# overrides target/release/squill), python3, Linux, and a file system that
# takes direct writes under SQUILL_FRESH_DIR (default target/bench-fresh).
set -eu

trios=${1:-10}
bin=${SQUILL_BIN:-target/release/squill}
dir=${SQUILL_FRESH_DIR:-target/bench-fresh}
pause=${SQUILL_FRESH_SLEEP:-3}
here=$(dirname "$0")
model=$here/../../../examples/host-logs.yaml
mkdir -p "$dir"
rows=$(mktemp)
trap 'rm -rf "$dir/gen" "$dir/plain.bin" "$rows"' EXIT

i=0
while [ "$i" -lt "$trios" ]; do
    i=$((i + 1))
    rm -rf "$dir/gen"
    sleep "$pause"
    out=$("$bin" generate data "$model" --scale 9 --seed 1 --threads 2 --direct --out "$dir/gen")
    gen=$(echo "$out" | sed -n 's/.* \([0-9,]*\) bytes in \([0-9.]*\) s .*/\1 \2/p' | tr -d ,)
    bytes=${gen% *}
    rm -rf "$dir/gen"
    sleep "$pause"
    plain=$(python3 "$here/plain_direct.py" "$dir/plain.bin" "$bytes")
    rm -f "$dir/plain.bin"
    sleep "$pause"
    nocopy=$(NOCOPY=1 python3 "$here/plain_direct.py" "$dir/plain.bin" "$bytes")
    rm -f "$dir/plain.bin"
    echo "trio $i: $bytes bytes; generate ${gen#* } s, plain ${plain} s, plain without the copy ${nocopy} s"
    echo "${gen#* } $plain $nocopy" >>"$rows"
done

python3 - "$rows" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
gen, plain, nocopy = zip(*rows)
print(f"medians over {len(rows)} trios: generate {statistics.median(gen):.3f} s, "
      f"plain {statistics.median(plain):.3f} s, plain without the copy {statistics.median(nocopy):.3f} s")
for name, other in (("plain", plain), ("plain without the copy", nocopy)):
    r = [g / o for g, o in zip(gen, other)]
    print(f"  generate / {name}: median {statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}) per trio")
PY
