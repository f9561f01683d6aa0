#!/usr/bin/env bash
# The LZ4 saving of each PR-SSD workload's content next to Table 2's "compression ratio"
# (docs/content.md, "The PR-SSD workloads"): `ssdlab codec-study --units N` on the `pr-ssd` preset
# (16 KiB logical pages, seed 1) with each named workload, LZ4 with PR-SSD's 10% failure threshold
# (failed units stored raw, the paper's device), LZ4 without it, and DPC and FPC for information.
# Prints a Markdown table on stdout.
#
# Usage: scripts/pr-ssd-content.sh [UNITS]   (default 20000 units per workload)
# Needs a release build: cargo build --release -p ssdlab
set -euo pipefail
cd "$(dirname "$0")/.."

units=${1:-20000}
bin=target/release/ssdlab
# Table 2, "Compression ratio" (pr-ssd.txt, §5.1.2), in percent.
declare -A table2=([ubuntu]=54 [windows]=45 [compile]=54 [internet]=34 [office]=43 [copy]=9 [db]=63 [ml]=56)

study() { # workload, extra arguments → the JSON report
    "$bin" codec-study --units "$units" --preset pr-ssd --workload "pr-ssd-$1" --json "${@:2}"
}

echo "| workload | mix | LZ4 saving | Table 2 | difference | LZ4, no threshold | LZ4 failed | DPC | FPC |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for w in ubuntu windows compile internet office copy db ml; do
    with=$(study "$w" --codec lz4 --codec dpc --codec fpc)
    without=$(study "$w" --codec lz4 --failure-threshold-saving 0)
    mix=$("$bin" workloads --show "pr-ssd-$w" | python3 -c '
import sys, tomllib
mix = tomllib.loads(sys.stdin.read())["content"]["mix"]
short = lambda f: f if "*" in f else f.rsplit("/", 1)[-1]  # a file by its name, a pattern whole
print(", ".join("%s %g%%" % (" ".join(map(short, g["files"])), round(100 * g["fraction"], 6)) for g in mix))')
    python3 - "$w" "${table2[$w]}" "$mix" "$with" "$without" <<'EOF'
import json, sys
w, paper, mix, with_, without = sys.argv[1], float(sys.argv[2]), sys.argv[3], *map(json.loads, sys.argv[4:])
c, n = with_["codecs"], without["codecs"]
lz4 = 100 * c["lz4"]["ratio"]
print(f"| {w} | {mix} | {lz4:.1f}% | {paper:.0f}% | {lz4 - paper:+.1f} | {100 * n['lz4']['ratio']:.1f}% "
      f"| {100 * c['lz4']['failed_fraction']:.1f}% | {100 * c['dpc']['ratio']:.1f}% | {100 * c['fpc']['ratio']:.1f}% |")
EOF
done
