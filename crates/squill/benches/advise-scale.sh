#!/usr/bin/env bash
# The growth curve of `advise` with the model's size: chains of N entities
# with one include-read per relationship, and random models of 200/300/1,000
# and 1,000/1,000/1,000 entities/relationships/operations. Prints seconds,
# peak memory and the operation plans the search priced (BENCHMARKS.md,
# "advise at scale"). Usage: crates/squill/benches/advise-scale.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo build -q --release -p squill --example advise_scale
bin=target/release/examples/advise_scale
for args in "chain 100" "chain 200" "chain 400" "chain 800" "chain 1000" \
    "model 200 300 1000" "model 1000 1000 1000"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "  %e s wall, %M KB peak" "$bin" $args
done
