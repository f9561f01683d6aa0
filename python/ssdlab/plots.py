"""Plots of an experiment's results, in the form of the papers' figures.

``ssdlab experiment`` and ``ssdlab reproduce`` (through the Python console script) and
:func:`ssdlab.run_grid` call :func:`plot_experiment` on their output folder. It reads the files
the engine wrote there (``experiment.json``, ``results.csv``, ``runs/*.json``) and draws, into
``plots/``, as PNG and SVG:

- per metric (only those of the experiment's ``bar_metrics`` when it has that key), a bar chart
  with one group per workload and one bar per config, normalized to the config's baseline (its
  own ``baseline``, else the experiment's) when it has one (like SPREAD's Fig. 6 and PR-SSD's
  figures), except the experiment's ``absolute_metrics``, drawn as they are (like SPREAD's RAF,
  Fig. 6(c)); with more than one workload a last group, AVG, is the mean over the workloads, as
  the papers draw it;
- per chart of the experiment's ``charts`` (a paper's own layout), ``plots/NAME``: ``bars`` (one
  metric, the chart's configs, AVG group), ``stacked`` (a breakdown: each part's share of the
  parts' sum, one stacked bar per config; PR-SSD Fig. 19) or ``average`` (several metrics
  averaged over the workloads, a group per config; PR-SSD Fig. 17(b)) or ``lines`` (one metric
  against a parameter, a line per workload or per value of another parameter, optionally
  normalized to one config; ROSA Figs. 1–2);
- per workload, the read-latency CDF of each config (from the summaries' ``cdf`` points), unless
  the experiment sets ``latency_cdfs = false``.

The numbers are read by :class:`ssdlab.outputs.Outputs`, which the interactive site
(``ssdlab report``, :mod:`ssdlab.report`) reads them with too.

Run it again by hand with ``python -m ssdlab.plots DIR``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ssdlab.outputs import AVG, Outputs, chart_configs, config_name, group_name, text

__all__ = ["plot_experiment"]


def _name(metric: str) -> str:
    return metric.replace(".", "_")


def plot_experiment(out_dir: str | os.PathLike[str]) -> list[Path]:
    """Draw the plots of the experiment whose results are in ``out_dir``; returns the files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Outputs.read(out_dir)
    spec, configs, values = out.spec, out.configs, out.values
    plots = out.dir / "plots"
    plots.mkdir(exist_ok=True)
    written: list[Path] = []

    def save(fig, stem: str) -> None:
        for ext in ("png", "svg"):
            path = plots / f"{stem}.{ext}"
            # No date and a fixed salt for the element ids keep the SVG identical from run to run.
            with matplotlib.rc_context({"svg.hashsalt": "ssdlab"}):
                fig.savefig(path, dpi=120, metadata={"Date": None} if ext == "svg" else None)
            if ext == "svg":
                number_clip_paths(path)
            written.append(path)
        plt.close(fig)

    for metric in out.bar_metrics():
        save(_bars(plt, values, metric, configs, out.groups, metric), _name(metric))
    for chart in spec.get("charts", []):
        kind = chart.get("kind", "bars")
        chosen = [config_name(c) for c in chart_configs(spec, chart)]
        title = chart.get("title") or chart["name"]
        if kind == "lines":
            fig = _lines(plt, out, chart, title)
        elif kind == "bars":
            fig = _bars(plt, values, chart["metrics"][0], chosen, out.groups, title)
        elif kind == "stacked":
            fig = _stacked(plt, values, chart["metrics"], chosen, out.groups, title)
        else:
            fig = _averages(plt, values, chart["metrics"], chosen, title)
        save(fig, chart["name"])

    runs = out.runs()
    for w in out.workloads if spec.get("latency_cdfs", True) else []:
        fig, ax = plt.subplots(figsize=(5 + _legend_width(configs), _height(len(configs))))
        drawn = False
        for c in configs:
            r = runs.get((c, w))
            cdf = r and r["summary"]["latency_ns"]["read"].get("cdf")
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


def number_clip_paths(svg: Path) -> None:
    """Name the clip paths of an SVG matplotlib wrote ``clip0``, ``clip1``, ... in the order they
    are defined. matplotlib names a clip rectangle by a hash of its bounds' full ``repr``, whose
    last bits move with the machine's floating-point code paths (a layout computed on another
    CPU), where every coordinate it writes is rounded: the ids alone differed between machines."""
    text = svg.read_text()
    for n, old in enumerate(dict.fromkeys(re.findall(r'<clipPath id="(p[0-9a-f]{10})">', text))):
        text = text.replace(f'"{old}"', f'"clip{n}"').replace(f"#{old})", f"#clip{n})")
    svg.write_text(text)


def _height(entries: int) -> float:
    """A figure's height in inches: 3.2, or more for a legend of many entries (a sweep's configs)."""
    return max(3.2, 0.18 * entries + 0.6)


def _legend_width(entries: list[str]) -> float:
    """Inches added for a legend of many long entries (a sweep's config names); none otherwise."""
    return 0.07 * max(map(len, entries)) if len(entries) > 14 else 0.0


def _bars(plt, values, metric: str, configs: list[str], groups: list, title: str):
    """One group per workload (and AVG), one bar per config."""
    fig, ax = plt.subplots(
        figsize=(max(4.0, 1.2 * len(groups) + 2) + _legend_width(configs), _height(len(configs)))
    )
    width = 0.8 / max(len(configs), 1)
    for i, c in enumerate(configs):
        ys = [values.normalized(c, g, metric) for g in groups]
        xs = [j + (i - (len(configs) - 1) / 2) * width for j in range(len(groups))]
        ax.bar(xs, ys, width=width, label=c)
    ax.set_xticks(range(len(groups)), [group_name(g) for g in groups])
    ax.set_ylabel(values.label(configs, metric))
    if any(values.base(c, metric) for c in configs):
        ax.axhline(1.0, color="black", linewidth=0.6)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _stacked(plt, values, metrics: list[str], configs: list[str], groups: list, title: str):
    """One group per workload (and AVG), one bar per config stacking the parts' shares."""
    fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(groups) * len(configs) + 2), 3.4))
    width = 0.8 / max(len(configs), 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    hatches = ["", "//", "..", "xx", "\\\\", "++"]
    for i, c in enumerate(configs):
        xs = [j + (i - (len(configs) - 1) / 2) * width for j in range(len(groups))]
        shares = [values.shares(c, g, metrics) for g in groups]
        bottom = [0.0] * len(groups)
        for k, m in enumerate(metrics):
            ys = [s[k] for s in shares]
            ax.bar(
                xs,
                ys,
                width=width,
                bottom=bottom,
                color=colors[k % len(colors)],
                hatch=hatches[i % len(hatches)],
                edgecolor="black",
                linewidth=0.4,
                label=f"{c}: {m}",
            )
            bottom = [b + y for b, y in zip(bottom, ys)]
    ax.set_xticks(range(len(groups)), [group_name(g) for g in groups])
    ax.set_ylabel("share")
    ax.set_ylim(0, 1)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _averages(plt, values, metrics: list[str], configs: list[str], title: str):
    """One group per config, one bar per metric: the mean over the workloads."""
    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 * len(configs) + 3), 3.2))
    width = 0.8 / max(len(metrics), 1)
    for i, m in enumerate(metrics):
        ys = [values.normalized(c, AVG, m) for c in configs]
        xs = [j + (i - (len(metrics) - 1) / 2) * width for j in range(len(configs))]
        ax.bar(xs, ys, width=width, label=m)
    ax.set_xticks(range(len(configs)), configs)
    bases = {values.base(c, m) for c in configs for m in metrics}
    ax.set_ylabel("average over workloads" + ("" if bases == {None} else " (normalized)"))
    if bases != {None}:
        ax.axhline(1.0, color="black", linewidth=0.6)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _lines(plt, out: Outputs, chart: dict, title: str):
    """One metric against the parameter ``x`` (:meth:`Outputs.lines`): a panel per workload when
    the chart has a ``series`` over several, each line in the same colour in every panel;
    ``log`` axes on a log scale."""
    data = out.lines(chart)
    panels, lines, names = data.panels, data.lines, data.names
    # A line named by a config's parameters (x a workload's) needs its room in any number.
    legend = _legend_width(names) or (0.07 * max(map(len, names)) if data.by_workload else 0.0)
    fig, axes = plt.subplots(
        1,
        len(panels),
        # Wide enough for the panels and the legend beside them, and for the title.
        figsize=(max(2.2 + 3.3 * len(panels) + legend, 0.075 * len(title)), 3.4),
        sharey=True,
        squeeze=False,
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, panel in zip(axes[0], panels):
        for name, points in lines.get(panel, {}).items():
            colour = colours[names.index(name) % len(colours)]
            ax.plot(
                [q[0] for q in points], [q[1] for q in points], marker="o", label=name, color=colour
            )
        ax.set_xlabel(data.x)
        for axis in chart.get("log", []):
            getattr(ax, f"set_{axis}scale")("log")
        if "x" in chart.get("log", []):
            # Less than a decade apart, log ticks label every minor tick: label the points
            # instead (page sizes 2 … 16), or leave the decades (read sizes 4 KiB … 128 MiB).
            xs = sorted({q[0] for ls in lines.values() for pts in ls.values() for q in pts})
            ax.minorticks_off()
            if len(xs) <= 8:
                ax.set_xticks(xs, [text(v) for v in xs])
        if data.normalized:
            ax.axhline(1.0, color="black", linewidth=0.6)
        if panel is not None:
            ax.set_title(panel, fontsize="small")
    metric = data.metric
    axes[0][0].set_ylabel(
        f"{metric}\n(normalized)" if data.normalized else metric, fontsize="small"
    )
    axes[0][-1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ssdlab.plots DIR")
    for p in plot_experiment(sys.argv[1]):
        print(p)
