#!/usr/bin/env python3
"""Run every shipped preset on the shared real traces (and, GC-active, on a small device), and
keep each run's `ssdlab run --json` summary, so that a change to the engine that must keep
every result can be checked run by run against the build before it.

    python scripts/same_results.py --bin OLD/ssdlab --out /tmp/before
    python scripts/same_results.py --bin NEW/ssdlab --out /tmp/after --compare /tmp/before

Each run is written to OUT/PRESET--TRACE[--gc].json: the summary without its wall-time fields
(`wall_time_s`, the only keys that differ between identical runs, docs/results.md), or, for a run
that is refused or fails, its exit code and message. `--compare DIR` prints every run whose file
differs from DIR's and exits 1 if any does. `--jobs N` runs N at a time (default: the cores).

The traces are those of `../shared/traces` (the shared collection, MANIFEST.md there), read as
docs/traces.md says, addresses past the device's capacity wrapped; `--traces DIR` names another
copy. The GC-active runs replay the first
100,000 requests of the synthetic MQSim trace (traces/, committed) and two shared traces on a
device of 2 channels × 160 blocks of 48 pages per plane, filled to 90% and overwritten once, with
the integrity oracle on: every preset's GC, in a steady state, with its checks.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# How each shared trace is read (docs/traces.md); None: refused by design (the WiscSee digest).
FORMATS: dict[str, list[str] | None] = {
    "msrcut_heimdall_rw20_80_105.trace.gz": [
        "--columns", "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0"],
    "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz": [
        "--columns", "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0"],
    "cloudphysics_vscsi_sample_decoded.csv.gz": [
        "--columns", "separator=, time_us=1 op=2 size_bytes=4 offset_sectors=5 read=R write=W"],
    "umass_websearch1_first50000_flashsim.trace.gz": ["--format", "flashsim"],
    "umass_websearch1_first24783_mqsim.trace.gz": ["--format", "mqsim"],
    "tpcc_small_mqsim.trace.gz": ["--format", "mqsim"],
    "wiscsee_sqlite_wal_ext4_events.txt.gz": [],
}

# A small device whose GC runs in a steady state (issue 47's `SM`).
SMALL = [
    "geometry.channels=2", "geometry.ways_per_channel=1", "geometry.dies_per_way=1",
    "geometry.blocks_per_plane=160", "geometry.pages_per_block=48",
    "ftl.overprovisioning_ratio=0.12", "precondition.fill_fraction=0.9",
    "precondition.overwrite_fraction=1.0", "host.out_of_range=wrap",
]
# Presets whose regions name their blocks: the small device's regions, in the same proportions
# of room (an SLC-mode cache of 30 blocks beside 170 dense ones, 20% over-provisioning).
REGIONS = {
    "ipu": ("mlc", ""),
    "composed": ("tlc", ", nop = 4"),
}


def small(preset: str) -> list[str]:
    if preset not in REGIONS:
        return SMALL
    mode, extra = REGIONS[preset]
    regions = (f'[{{name = "main", cell_mode = "{mode}", blocks_per_plane = 170}}, '
               f'{{name = "slc", cell_mode = "slc", blocks_per_plane = 30{extra}}}]')
    sets = [s for s in SMALL if not s.startswith(("geometry.blocks_per_plane",
                                                   "ftl.overprovisioning_ratio"))]
    return [*sets, "geometry.blocks_per_plane=200", "ftl.overprovisioning_ratio=0.2",
            f"geometry.regions={regions}"]


GC_TRACES = [
    ("synth_mqsim_first100000.trace.gz", ROOT / "traces", ["--format", "mqsim"]),
    ("msr_hm_0_first1000.csv.gz", None, []),
    ("tpcc_small_mqsim.trace.gz", None, ["--format", "mqsim"]),
]


def presets(binary: str) -> list[str]:
    out = subprocess.run([binary, "presets"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


def runs(binary: str, traces: Path) -> list[tuple[str, list[str]]]:
    todo = []
    for preset in presets(binary):
        for trace in sorted(traces.glob("*.gz")):
            extra = FORMATS.get(trace.name, [])
            todo.append((f"{preset}--{trace.name}",
                         ["run", "--preset", preset, "--trace", str(trace), "--json", *extra,
                          "--set", "host.out_of_range=wrap"]))
        for name, folder, extra in GC_TRACES:
            path = (folder or traces) / name
            sets = [a for s in small(preset) for a in ("--set", s)]
            todo.append((f"{preset}--{name}--gc",
                         ["run", "--preset", preset, "--trace", str(path), "--json", "--verify",
                          *extra, *sets]))
    return todo


def strip_wall_time(v):
    if isinstance(v, dict):
        return {k: strip_wall_time(x) for k, x in v.items() if k != "wall_time_s"}
    if isinstance(v, list):
        return [strip_wall_time(x) for x in v]
    return v


def one(binary: str, out: Path, name: str, args: list[str]) -> str:
    p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=ROOT)
    if p.returncode == 0:
        text = json.dumps(strip_wall_time(json.loads(p.stdout)), indent=1, sort_keys=True)
    else:
        text = json.dumps({"exit": p.returncode, "stderr": p.stderr.strip()}, indent=1)
    (out / f"{name}.json").write_text(text + "\n")
    return name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the ssdlab binary to run")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--traces", type=Path, default=ROOT.parent / "shared" / "traces")
    ap.add_argument("--compare", type=Path, help="a folder written by an earlier build")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    todo = runs(os.path.abspath(a.bin), a.traces)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(one, os.path.abspath(a.bin), a.out, n, args) for n, args in todo]
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            print(f"\r{i}/{len(todo)} {f.result()[:60]:60}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if a.compare is None:
        return 0
    def same(n: str) -> bool:
        before = a.compare / f"{n}.json"
        return before.is_file() and before.read_bytes() == (a.out / f"{n}.json").read_bytes()

    differ = [n for n, _ in todo if not same(n)]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(todo) - len(differ)} of {len(todo)} runs as before")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
