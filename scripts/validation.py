#!/usr/bin/env python3
"""ssdlab's side of the cross-validation against MQSim (docs/validation.md).

Runs the `mqsim` preset on the inputs MQSim was run on (validation/mqsim/README.md) and writes
validation/ssdlab.json: per input, the command's arguments and the figures compared. Those on
committed traces are what tests/validation.rs pins: a model change that moves one fails the test
until this script is run again and the change explained. With --synth1m it also runs the full
1 M-request trace (regenerate it with ../shared/tools/gen_mqsim_trace.py), whose figures
docs/validation.md reports but no test pins (the trace is not committed).

    python3 scripts/validation.py [--binary target/release/ssdlab] [--synth1m PATH] [--table]

--table prints the comparison with validation/mqsim/results.json as markdown.
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEIMDALL_COLUMNS = "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0"

# name: (trace, extra arguments, MQSim's run of the same requests)
INPUTS = {
    "synth100k": ("traces/synth_mqsim_first100000.trace.gz", ["--format", "mqsim"], None),
    "tpcc": ("traces/tpcc_small_mqsim.trace.gz", ["--format", "mqsim"], "tpcc"),
    "wsrch": ("traces/umass_websearch1_first24783_mqsim.trace.gz", ["--format", "mqsim"], "wsrch"),
    "msr_hm_0": ("traces/msr_hm_0_first1000.csv.gz", [], "msr_hm_0"),
    "heimdall": (
        "traces/msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz",
        ["--columns", HEIMDALL_COLUMNS],
        "heimdall",
    ),
}

# The summary's figures compared (and pinned): paths into `ssdlab run --json`.
FIGURES = [
    "requests.count",
    "latency_ns.all.mean",
    "latency_ns.all.p99",
    "latency_ns.read.mean",
    "latency_ns.read.p99",
    "latency_ns.write.mean",
    "latency_ns.write.p99",
    "flash_ops.read.host",
    "flash_ops.read.rmw",
    "flash_ops.read.gc",
    "flash_ops.read.mapping",
    "flash_ops.program.host",
    "flash_ops.program.gc",
    "flash_ops.program.mapping",
    "flash_ops.erase.total",
    "gc.invocations",
    "waf",
    "mapping_cache.hits",
    "mapping_cache.misses",
    "mapping_cache.page_writes",
    "data_cache.dram.busy_ns",
    "sim_time_ns",
]

# Variants run beside the preset, each isolating one difference (docs/validation.md).
VARIANTS = {
    "all_in_dram": ['ftl.mapping_cache={policy="all"}'],
}


def figure(summary, path):
    v = summary
    for k in path.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def run(binary, trace, extra, sets):
    args = ["run", "--preset", "mqsim", "--trace", trace, *extra]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(
        [binary, *args, "--json"], cwd=ROOT, check=True, capture_output=True, text=True
    )
    summary = json.loads(out.stdout)
    return args, {p: figure(summary, p) for p in FIGURES}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(ROOT / "target/release/ssdlab"))
    ap.add_argument("--synth1m", help="the full 1 M-request trace (not committed)")
    ap.add_argument("--table", action="store_true", help="print the comparison as markdown")
    a = ap.parse_args()
    inputs = dict(INPUTS)
    if a.synth1m:
        inputs["synth1m"] = (a.synth1m, ["--format", "mqsim"], "synth1m")
    runs = {}
    for name, (trace, extra, mqsim) in inputs.items():
        for variant, sets in [("", [])] + list(VARIANTS.items()):
            key = f"{name}_{variant}" if variant else name
            print(f"running {key}", file=sys.stderr)
            args, figs = run(a.binary, trace, extra, sets)
            # (The full trace lives outside the repository; the variants explain, the preset's
            # runs are what is pinned.)
            pinned = name != "synth1m" and not variant
            runs[key] = {"args": args, "pinned": pinned, "mqsim": mqsim, "figures": figs}
    out = ROOT / "validation/ssdlab.json"
    out.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}", file=sys.stderr)
    if a.table:
        print_table(runs)


def print_table(runs):
    mq = json.loads((ROOT / "validation/mqsim/results.json").read_text())["runs"]
    print("| input | ssdlab mean all (µs) | MQSim | ratio | ssdlab reads host/rmw/mapping | MQSim "
          "reads user/mapping | ssdlab programs host/mapping | MQSim programs user |")
    print("|---|---:|---:|---:|---|---|---|---|")
    for key, r in runs.items():
        f = r["figures"]
        m = mq.get(r["mqsim"]) if r["mqsim"] else None
        ours = f["latency_ns.all.mean"] / 1000
        if m:
            d = m["derived"]
            theirs = m["host_flow"]["Device_Response_Time"]
            row = (f"{theirs}", f"{ours / theirs:.2f}",
                   f"{d['flash_reads_user']:,} / {d['flash_reads_mapping']:,}",
                   f"{d['flash_programs_user']:,}")
        else:
            row = ("—", "—", "—", "—")
        print(f"| {key} | {ours:.1f} | {row[0]} | {row[1]} | "
              f"{f['flash_ops.read.host']:,} / {f['flash_ops.read.rmw']:,} / "
              f"{f['flash_ops.read.mapping'] or 0:,} | {row[2]} | "
              f"{f['flash_ops.program.host']:,} / {f['flash_ops.program.mapping'] or 0:,} | {row[3]} |")


if __name__ == "__main__":
    main()
