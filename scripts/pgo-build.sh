#!/usr/bin/env bash
# Build the `ssdlab` command with profile-guided optimisation (docs/performance.md, "The
# profile-guided build"): an instrumented build runs a training set of simulations,
# and the final build lays out and inlines the code by what those runs executed. Results are
# identical to the plain release build's; the steady benchmark runs 12-17% faster.
#
# Usage: scripts/pgo-build.sh [PRESET...]   (train on `default`, plus each PRESET named)
# Needs cargo-pgo and LLVM's profile tools of the active toolchain:
#   cargo install cargo-pgo && rustup component add llvm-tools
# Prints the path of the optimised binary on stdout; everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo-pgo >/dev/null; then
    echo "pgo-build: cargo-pgo not found; install it with: cargo install cargo-pgo" >&2
    exit 2
fi

host=$(rustc -vV | sed -n 's/^host: //p')
bin="target/$host/release/ssdlab"

cargo pgo build -- -p ssdlab >&2

# The training set: what the engine spends its time on in use, on the `default` preset. The
# benchmark's two scenarios (fresh, and steady with GC on a 45 GiB device that preconditions in
# seconds), three of the papers' workloads, and a real trace replayed with the integrity oracle.
# The gain rests on indirect-call promotion (calls through trait objects that the profile saw
# reach one implementation), and training on several presets leaves fewer such calls: each named
# PRESET adds a read-heavy and a mixed workload, and a mixed one with GC active after a 90% random
# fill. (Trained on all six presets, the steady benchmark gained about 5% instead of 12-17%.)
train() { echo "pgo-build: training: ssdlab $*" >&2; "$bin" "$@" >/dev/null; }
train bench --scenario fresh --requests 300000
train bench --scenario steady --requests 300000 \
    --set geometry.blocks_per_plane=60 --set ftl.overprovisioning_ratio=0.15
for workload in spread-kv pr-ssd-compile spread-usr; do
    train run --workload "$workload" --json
done
train run --trace traces/msr_hm_0_first1000.csv.gz --verify --json
for preset in "$@"; do
    train run --preset "$preset" --workload spread-kv --json
    train run --preset "$preset" --workload spread-usr --json
    train run --preset "$preset" --workload spread-usr --json --set precondition.fill_fraction=0.9 \
        --set 'precondition.pattern="random"' --set precondition.overwrite_fraction=0.5
done

cargo pgo optimize build -- -p ssdlab >&2
echo "$bin"
