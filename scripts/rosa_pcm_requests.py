#!/usr/bin/env python3
"""Reads served wholly from PCM in ROSA runs: the share of host reads none of whose units was read
from flash, which the run summary does not count (it counts units: ``pcm.reads`` of the
``read_units.flash`` served from the media, PCM's among them). Used by docs/reproductions/rosa/README.md.

Each run given (a ``runs/*.json`` of an experiment's output) is simulated again from the config
it recorded (``summary.config``, written out as TOML), with the request log; the rerun must give
the recorded mean latency, or the script stops. Of the measured requests (the last ones by
arrival, after ``statistics.warmup_requests``), a read is counted as served wholly from PCM when
its latency is under the shortest time a read with a unit on flash can take: the flash's
shortest sense time plus one mapping unit over the channel (88 µs + 4,096 B at 40 MB/s =
190.4 µs on the ``rosa`` device). That is a lower bound on the count: a read served wholly from
PCM that waited in a queue long enough is missed, so the script also prints how many reads lie
just under the bound (within 60 µs of it), where such reads would be. It also gives the share
of measured requests (reads and writes) over 1 ms, which waited behind background programs, and
the mean of the others; and the share of measured reads all of whose units the warm-up read:
level 1 at the boundary moves into PCM only units read so far, so these are the reads it can
make PCM's (units PCM held from the start and kept serve others).

Usage, from the repository root (trace paths in the runs are relative to it)::

    python scripts/rosa_pcm_requests.py docs/reproductions/rosa/runs/ROSA*pcm3*zipf0.99*.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import ssdlab

WINDOW_NS = 60_000  # how far under the bound the reads the bound might misclassify would lie


def toml_value(v) -> str:
    """``v`` as a TOML value, tables inline (the resolved config has no null that matters: keys
    holding null are left out, which is how the engine reads an absent optional table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ValueError(f"no TOML for {v}")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        items = [f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items() if x is not None]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise TypeError(f"no TOML for {type(v).__name__}")


def config_toml(config: dict) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in config.items() if v is not None)


def flash_read_floor_ns(config: dict) -> float:
    """The shortest latency of a read with a unit on flash: the shortest sense time of the flash
    plus one mapping unit over the channel."""
    timing = config["timing"]
    mode = config["geometry"]["cell_mode"]
    tr = min(v for k, v in timing[mode].items() if k.startswith("tr_") and k.endswith("_ns"))
    unit_bytes = config["ftl"]["mapping_unit_kib"] * 1024
    bytes_per_ns = timing["channel_rate_mts"] * timing["channel_width_bytes"] / 1000.0
    return tr + unit_bytes / bytes_per_ns


def measure(run_file: Path) -> dict:
    run = json.loads(run_file.read_text())
    summary = run["summary"]
    config = summary["config"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_text(config_toml(config))
        again = ssdlab.simulate(str(path), log_requests=True, progress=False)
    for key in ("all", "read"):
        was, now = summary["latency_ns"][key]["mean"], again.summary["latency_ns"][key]["mean"]
        if was != now:
            sys.exit(f"{run_file}: the rerun gives latency_ns.{key}.mean {now}, the run {was}")
    log = again.requests.sort_values(["arrival_ns", "completion_ns"], kind="stable")
    measured = log.iloc[summary["statistics"]["warmup_requests"] :]
    reads = measured[measured["op"] == "read"]
    if len(reads) != summary["latency_ns"]["read"]["count"]:
        sys.exit(f"{run_file}: {len(reads)} measured reads in the log, the summary counts "
                 f"{summary['latency_ns']['read']['count']}")
    floor = flash_read_floor_ns(config)
    pcm = reads[reads["latency_ns"] < floor]
    rest = reads[reads["latency_ns"] >= floor]
    near = reads[(reads["latency_ns"] >= floor - WINDOW_NS) & (reads["latency_ns"] < floor)]
    # The measured reads all of whose units the warm-up read: those level 1 at the boundary can
    # make PCM's (it moves into PCM only units read so far), and how many units the warm-up read
    # (PCM has 44,544 pages on rosa/device.toml).
    unit = config["ftl"]["mapping_unit_kib"] * 1024

    def spans(df):
        return [range(o // unit, (o + n - 1) // unit + 1)
                for o, n in zip(df["offset_bytes"].to_numpy(), df["size_bytes"].to_numpy())]

    warm = log.iloc[: summary["statistics"]["warmup_requests"]]
    seen: set[int] = set()
    for span in spans(warm[warm["op"] == "read"]):
        seen.update(span)
    foreseen = sum(all(u in seen for u in span) for span in spans(reads))
    # Requests (reads and writes) that waited behind background work: over 1 ms, five times a
    # flash read's floor; and the mean of the others.
    slow = measured[measured["latency_ns"] > 1_000_000]
    quick = measured[measured["latency_ns"] <= 1_000_000]
    by_size = {}
    for size, group in reads.groupby("size_bytes"):
        if len(group) >= 100:
            by_size[int(size) // 1024] = (group["latency_ns"] < floor).mean()
    return {
        "run": run_file.name,
        "reads": len(reads),
        "pcm_wholly": len(pcm),
        "share": len(pcm) / len(reads),
        "mean_pcm_us": pcm["latency_ns"].mean() / 1000 if len(pcm) else float("nan"),
        "mean_rest_us": rest["latency_ns"].mean() / 1000 if len(rest) else float("nan"),
        "near_floor": len(near),
        "floor_us": floor / 1000,
        "by_size": by_size,
        "warm_units": len(seen),
        "foreseen": foreseen / len(reads),
        "slow_share": len(slow) / len(measured),
        "slow_mean_ms": slow["latency_ns"].mean() / 1e6 if len(slow) else float("nan"),
        "quick_mean_us": quick["latency_ns"].mean() / 1000,
        # `read_units.flash` counts every host-read unit served from the media, PCM's too.
        "pcm_unit_share": summary.get("pcm", {}).get("reads", 0) / summary["read_units"]["flash"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    a = parser.parse_args(argv)
    print("| run | measured reads | served wholly from PCM | share | their mean (µs) | others' "
          "mean (µs) | reads within 60 µs under the bound | PCM's share of read units | "
          "share wholly from PCM by read size (KiB) | requests over 1 ms | their mean (ms) | "
          "the other requests' mean (µs) | units the warm-up read | measured reads wholly on them |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for f in a.runs:
        m = measure(f)
        sizes = ", ".join(f"{k}: {v:.3f}" for k, v in sorted(m["by_size"].items()))
        print(f"| {m['run']} | {m['reads']} | {m['pcm_wholly']} | {m['share']:.3f} | "
              f"{m['mean_pcm_us']:.1f} | {m['mean_rest_us']:.1f} | {m['near_floor']} | "
              f"{m['pcm_unit_share']:.3f} | {sizes} | {m['slow_share']:.4f} | "
              f"{m['slow_mean_ms']:.1f} | {m['quick_mean_us']:.1f} | {m['warm_units']} | "
              f"{m['foreseen']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
