"""Plots of an experiment's results, in the form of the papers' figures.

``ssdlab experiment`` and ``ssdlab reproduce`` (through the Python console script) and
:func:`ssdlab.run_grid` call :func:`plot_experiment` on their output folder. It reads the files
the engine wrote there (``experiment.json``, ``results.csv``, ``runs/*.json``) and draws, into
``plots/``, as PNG and SVG:

- per metric, a bar chart with one group per workload and one bar per config, normalized to the
  experiment's ``baseline`` config when it has one (like SPREAD's Fig. 6 and PR-SSD's figures),
  except the experiment's ``absolute_metrics``, drawn as they are (like SPREAD's RAF, Fig. 6(c));
- per workload, the read-latency CDF of each config (from the summaries' ``cdf`` points).

Run it again by hand with ``python -m ssdlab.plots DIR``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

__all__ = ["plot_experiment"]


def _name(metric: str) -> str:
    return metric.replace(".", "_")


def plot_experiment(out_dir: str | os.PathLike[str]) -> list[Path]:
    """Draw the plots of the experiment whose results are in ``out_dir``; returns the files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas

    out = Path(out_dir)
    spec = json.loads((out / "experiment.json").read_text())
    results = pandas.read_csv(out / "results.csv")
    configs = [c["label"] for c in spec["configs"]]
    workloads = [w["label"] for w in spec["workloads"]]
    absolute = set(spec.get("absolute_metrics", []))
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    written: list[Path] = []

    def save(fig, stem: str) -> None:
        for ext in ("png", "svg"):
            path = plots / f"{stem}.{ext}"
            # No date and a fixed salt for the element ids keep the SVG identical from run to run.
            with matplotlib.rc_context({"svg.hashsalt": "ssdlab"}):
                fig.savefig(path, dpi=120, metadata={"Date": None} if ext == "svg" else None)
            written.append(path)
        plt.close(fig)

    means = results.groupby(["workload", "config"], sort=False).mean(numeric_only=True)
    width = 0.8 / max(len(configs), 1)
    for metric in spec["metrics"]:
        baseline = None if metric in absolute else spec.get("baseline")
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(workloads) + 2), 3.2))
        for i, c in enumerate(configs):
            ys = []
            for w in workloads:
                try:
                    v = means.loc[(w, c), metric]
                    b = means.loc[(w, baseline), metric] if baseline else 1.0
                except KeyError:
                    v, b = float("nan"), 1.0
                ys.append(v / b if b else float("nan"))
            xs = [j + (i - (len(configs) - 1) / 2) * width for j in range(len(workloads))]
            ax.bar(xs, ys, width=width, label=c)
        ax.set_xticks(range(len(workloads)), workloads)
        ax.set_ylabel(f"{metric}" + (f" (normalized to {baseline})" if baseline else ""))
        if baseline:
            ax.axhline(1.0, color="black", linewidth=0.6)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.set_title(metric)
        fig.tight_layout()
        save(fig, _name(metric))

    runs = {}
    for path in sorted((out / "runs").glob("*.json")):
        r = json.loads(path.read_text())
        runs.setdefault((r["config_label"], r["workload"]), r["summary"])
    for w in workloads:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        drawn = False
        for c in configs:
            s = runs.get((c, w))
            cdf = s and s["latency_ns"]["read"].get("cdf")
            if not cdf:
                continue
            qs, ns = zip(*cdf)
            ax.plot([n / 1000 for n in ns], qs, marker=".", label=c)
            drawn = True
        if not drawn:
            plt.close(fig)
            continue
        ax.set_xscale("log")
        ax.set_xlabel("read latency (µs)")
        ax.set_ylabel("fraction of reads")
        ax.set_title(f"read latency CDF: {w}")
        ax.legend(fontsize="small")
        fig.tight_layout()
        save(fig, f"latency_cdf_{w}")
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ssdlab.plots DIR")
    for p in plot_experiment(sys.argv[1]):
        print(p)
