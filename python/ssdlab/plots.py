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
  the papers draw it. In an experiment with an ``[ablation]`` the metric's chart is instead each
  technique's contribution (:func:`_ablation`): a panel per workload, a pair of horizontal bars
  per technique, its effect alone and in the full set, from a line at no effect;
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

import math
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
        effects = out.ablation(metric)
        if effects is not None:
            save(_ablation(plt, effects), _name(metric))
            continue
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


def ablation_text(v: float, absolute: bool) -> str:
    """An effect as the chart writes it beside its bar: ``0.87×``, or ``+1.24`` for a
    difference (``+1,795`` for a count)."""
    if v != v:  # NaN: a ratio to 0
        return "—"
    if not absolute:
        return f"{v:.2f}×"
    shown = f"{v:+,.0f}" if abs(v) >= 100 else f"{v:+.2f}"
    # No sign on a difference that rounds to nothing (-0.00).
    return shown[1:] if shown.strip("+-0.,") == "" else shown


def ablation_axis(effects) -> tuple[str, tuple[float, float]]:
    """The x axis every panel shares: ``log`` for ratios, ``linear`` for differences, and its
    range, symmetric about no effect with room for the bars' labels."""
    drawn = [
        v
        for v in [*effects.total.values(), *effects.alone.values(), *effects.in_set.values()]
        if v == v and (effects.absolute or v > 0)
    ]
    if effects.absolute:
        reach = max([abs(v) for v in drawn] + [1e-9])
        return "linear", (-1.45 * reach, 1.45 * reach)
    reach = max([abs(math.log(v)) for v in drawn] + [math.log(1.1)])
    return "log", (math.exp(-1.5 * reach), math.exp(1.5 * reach))


def ablation_ticks(lo: float, hi: float) -> list[float]:
    """The ticks of a log axis of ratios from ``lo`` to ``hi``: 1, 2 and 5 of each decade, or
    only the decades when the axis spans more than three."""
    subs = (1, 2, 5) if math.log10(hi / lo) <= 3 else (1,)
    return [10.0**e * m for e in range(-4, 5) for m in subs if lo <= 10.0**e * m <= hi]


# The ablation chart's bars, their colours (matplotlib's and plotly's grey, blue, orange).
ABLATION_COLOURS = {"total": "#7f7f7f", "alone": "#1f77b4", "in_set": "#ff7f0e"}


def ablation_legend(absolute: bool) -> dict[str, str]:
    """What each of the ablation chart's bars is: the full set against none, a technique X
    alone against none, the full set against it without X (÷, or − for an absolute metric)."""
    by = "−" if absolute else "÷"
    return {
        "total": f"all: the full set {by} none",
        "alone": f"alone: X alone {by} none",
        "in_set": f"in the set: the full set {by} the full set without X",
    }


def ablation_title(metric: str) -> str:
    return f"{metric}: each technique's effect, alone and in the full set"


def _ablation(plt, effects):
    """Each technique's contribution to one metric: a panel per workload (two a row), a row per
    technique with two bars from the line at no effect (1×, or 0 for an absolute metric): X
    alone against none, and the full set against the full set without X; their gap is the
    interaction. A first row gives the full set against none. Ratios on a log axis, differences
    on a linear one, the same range in every panel."""
    workloads, techniques, neutral = effects.workloads, effects.techniques, effects.neutral
    cols = min(len(workloads), 2)
    rows = -(-len(workloads) // cols)
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(3.4 * cols + 1.3, 0.3 * (len(techniques) + 1) * rows + 0.55 * rows + 1.3),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    scale, limits = ablation_axis(effects)
    labels = ["all"] + techniques
    height = 0.38
    for k, ax in enumerate(axes.flat):
        if k >= len(workloads):
            ax.set_visible(False)
            continue
        w = workloads[k]
        bars = [(0.0, effects.total[w], "total")]
        for i, t in enumerate(techniques, 1):
            bars += [(i - 0.2, effects.alone[(t, w)], "alone")]
            bars += [(i + 0.2, effects.in_set[(t, w)], "in_set")]
        for y, v, kind in bars:
            drawable = v == v and (effects.absolute or v > 0)
            size = height if kind != "total" else 2 * height
            if drawable:
                ax.barh(y, v - neutral, left=neutral, height=size, color=ABLATION_COLOURS[kind])
            at = v if drawable else neutral
            right = not drawable or v >= neutral
            ax.annotate(
                ablation_text(v, effects.absolute),
                (at, y),
                xytext=(2 if right else -2, 0),
                textcoords="offset points",
                va="center",
                ha="left" if right else "right",
                fontsize=6,
            )
        ax.axvline(neutral, color="black", linewidth=0.6)
        ax.set_xscale(scale)
        ax.set_xlim(*limits)
        ax.set_title(w, fontsize="small")
        ax.tick_params(labelsize="x-small")
    ax0 = axes[0][0]
    ax0.set_yticks(range(len(labels)), labels)
    ax0.set_ylim(len(labels) - 0.5, -0.5)
    if scale == "log":
        ticks = ablation_ticks(*limits)
        for ax in axes.flat:
            ax.minorticks_off()
            ax.set_xticks(ticks, [f"{t:g}×" for t in ticks])
    how = "difference" if effects.absolute else "ratio"
    for ax in axes[-1]:
        ax.set_xlabel(f"{effects.metric}: {how}", fontsize="small")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in ABLATION_COLOURS.values()]
    fig.legend(
        handles,
        list(ablation_legend(effects.absolute).values()),
        loc="lower center",
        ncol=3,
        fontsize="x-small",
        frameon=False,
    )
    fig.suptitle(ablation_title(effects.metric), fontsize="medium")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
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
