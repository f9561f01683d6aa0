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

A baseline or ``normalized_to`` that is a label (not a config's name) stands for the config with
that label at each config's parameters; a workload's ``where`` leaves out the configs that do
not run it, and its AVG is over the workloads it runs.

Run it again by hand with ``python -m ssdlab.plots DIR``.
"""

from __future__ import annotations

import json
import math
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
    params = _param_columns(spec)
    # Parameters as the engine wrote them (text), so that a row's config name is the engine's.
    text = params + _workload_param_columns(spec)
    results = pandas.read_csv(out / "results.csv", dtype={p: str for p in text})
    if params:
        results["config"] = [_row_name(row, params) for row in results.to_dict("records")]
    configs = [_config_name(c) for c in spec["configs"]]
    workloads = [w["label"] for w in spec["workloads"]]
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    written: list[Path] = []
    means = results.groupby(["workload", "config"], sort=False).mean(numeric_only=True)
    values = _Values(spec, means)

    def save(fig, stem: str) -> None:
        for ext in ("png", "svg"):
            path = plots / f"{stem}.{ext}"
            # No date and a fixed salt for the element ids keep the SVG identical from run to run.
            with matplotlib.rc_context({"svg.hashsalt": "ssdlab"}):
                fig.savefig(path, dpi=120, metadata={"Date": None} if ext == "svg" else None)
            written.append(path)
        plt.close(fig)

    groups = workloads + ([_AVG] if len(workloads) > 1 else [])
    for metric in spec.get("bar_metrics", spec["metrics"]):
        save(_bars(plt, values, metric, configs, groups, metric), _name(metric))
    for chart in spec.get("charts", []):
        kind = chart.get("kind", "bars")
        chosen = [_config_name(c) for c in _chart_configs(spec, chart)]
        title = chart.get("title") or chart["name"]
        if kind == "lines":
            fig = _lines(plt, values, spec, chart, _chart_configs(spec, chart), title)
        elif kind == "bars":
            fig = _bars(plt, values, chart["metrics"][0], chosen, groups, title)
        elif kind == "stacked":
            fig = _stacked(plt, values, chart["metrics"], chosen, groups, title)
        else:
            fig = _averages(plt, values, chart["metrics"], chosen, title)
        save(fig, chart["name"])

    runs = {}
    for path in sorted((out / "runs").glob("*.json")):
        r = json.loads(path.read_text())
        # A config with parameters is filed under its name: NAME--WORKLOAD--seedN.json.
        name = path.stem[: -len(f"--{r['workload']}--seed{r['seed']}")]
        runs.setdefault((name, r["workload"]), r["summary"])
    for w in workloads if spec.get("latency_cdfs", True) else []:
        fig, ax = plt.subplots(figsize=(5 + _legend_width(configs), _height(len(configs))))
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


def _height(entries: int) -> float:
    """A figure's height in inches: 3.2, or more for a legend of many entries (a sweep's configs)."""
    return max(3.2, 0.18 * entries + 0.6)


def _legend_width(entries: list[str]) -> float:
    """Inches added for a legend of many long entries (a sweep's config names); none otherwise."""
    return 0.07 * max(map(len, entries)) if len(entries) > 14 else 0.0


def _param_columns(spec: dict) -> list[str]:
    """The configs' parameter columns of results.csv, in the engine's order."""
    names: list[str] = []
    for c in spec["configs"]:
        names += [k for k in sorted(c.get("params", {})) if k not in names]
    return names


def _workload_param_columns(spec: dict) -> list[str]:
    """The workloads' parameter columns of results.csv."""
    names: list[str] = []
    for w in spec["workloads"]:
        names += [k for k in sorted(w.get("params", {})) if k not in names]
    return names


def _runs_on(workload: dict, config: dict) -> bool:
    """Whether the config runs the workload (the workload's ``where``)."""
    params = config.get("params", {})
    return all(params.get(k) == v for k, v in workload.get("where", {}).items())


def _counterpart(spec: dict, reference: str, config: dict) -> str | None:
    """The name of the config ``reference`` stands for beside ``config``: the config of that
    name, else the one labelled so at ``config``'s parameters."""
    for c in spec["configs"]:
        if _config_name(c) == reference:
            return reference
    for c in spec["configs"]:
        if c["label"] == reference and c.get("params", {}) == config.get("params", {}):
            return _config_name(c)
    return None


def _config_name(config: dict) -> str:
    """A config's name: the engine writes it into experiment.json when it has parameters."""
    return config.get("name", config["label"])


def _row_name(row: dict, params: list[str]) -> str:
    """The name of a results.csv row's config, ``label[a=1,b=x]``, as the engine writes it."""
    given = sorted(p for p in params if isinstance(row[p], str))
    if not given:
        return row["config"]
    return f"{row['config']}[{','.join(f'{p}={row[p]}' for p in given)}]"


def _chart_configs(spec: dict, chart: dict) -> list[dict]:
    """The configs a chart draws: its ``configs`` (names, or labels standing for every config
    with that label), or all; with a ``where``, those whose parameters have its values."""
    every = spec["configs"]
    chosen = every
    if chart.get("configs"):
        chosen = []
        for want in chart["configs"]:
            named = [c for c in every if _config_name(c) == want]
            chosen += named or [c for c in every if c["label"] == want]
    columns = _param_columns(spec)
    where = {k: v for k, v in chart.get("where", {}).items() if k in columns}
    return [c for c in chosen if all(c.get("params", {}).get(k) == v for k, v in where.items())]


def _chart_workloads(spec: dict, chart: dict) -> list[dict]:
    """The workloads a chart draws: those whose parameters have the values its ``where`` gives
    the workloads' parameters."""
    columns = _workload_param_columns(spec)
    where = {k: v for k, v in chart.get("where", {}).items() if k in columns}
    return [
        w for w in spec["workloads"] if all(w.get("params", {}).get(k) == v for k, v in where.items())
    ]


# The last group of the bar charts: the mean over the workloads (not a workload's label).
_AVG = object()


def _group_name(g) -> str:
    return "AVG" if g is _AVG else g


class _Values:
    """Means over seeds, and the same divided by each config's baseline (the report's numbers)."""

    def __init__(self, spec: dict, means) -> None:
        self.means = means
        self.absolute = set(spec.get("absolute_metrics", []))
        default = spec.get("baseline")
        self.baseline = {
            _config_name(c): _counterpart(spec, c["baseline"], c) if "baseline" in c else default
            for c in spec["configs"]
        }
        # The workloads each config runs (all, unless a workload's `where` leaves it out).
        self.runs = {
            _config_name(c): [w["label"] for w in spec["workloads"] if _runs_on(w, c)]
            for c in spec["configs"]
        }

    def mean(self, config: str, workload: str, metric: str) -> float:
        try:
            return float(self.means.loc[(workload, config), metric])
        except KeyError:
            return math.nan

    def base(self, config: str, metric: str) -> str | None:
        """The config ``config``'s values of ``metric`` are divided by, if any."""
        return None if metric in self.absolute else self.baseline.get(config)

    def normalized(self, config: str, workload, metric: str) -> float:
        """On one workload, or the mean over the workloads for ``AVG``."""
        if workload is _AVG:
            return _mean([self.normalized(config, w, metric) for w in self.runs[config]])
        v = self.mean(config, workload, metric)
        b = self.base(config, metric)
        if b is None:
            return v
        d = self.mean(b, workload, metric)
        return v / d if d else math.nan

    def shares(self, config: str, workload, metrics: list[str]) -> list[float]:
        """Each part's share of the parts' sum; for ``AVG`` the mean share over the workloads."""
        if workload is _AVG:
            per = [self.shares(config, w, metrics) for w in self.runs[config]]
            return [_mean([p[i] for p in per]) for i in range(len(metrics))]
        parts = [self.mean(config, workload, m) for m in metrics]
        total = sum(parts)
        return [p / total if total else math.nan for p in parts]

    def label(self, configs: list[str], metric: str) -> str:
        bases = {self.base(c, metric) for c in configs}
        if bases == {None}:
            return metric
        if len(bases) == 1:
            return f"{metric}\n(normalized to {bases.pop()})"
        return f"{metric}\n(normalized to each config's baseline)"


def _mean(xs: list[float]) -> float:
    # NaN when a workload has no value, as the report leaves such an average out.
    return sum(xs) / len(xs) if xs else math.nan


def _bars(plt, values: _Values, metric: str, configs: list[str], groups: list, title: str):
    """One group per workload (and AVG), one bar per config."""
    fig, ax = plt.subplots(
        figsize=(max(4.0, 1.2 * len(groups) + 2) + _legend_width(configs), _height(len(configs)))
    )
    width = 0.8 / max(len(configs), 1)
    for i, c in enumerate(configs):
        ys = [values.normalized(c, g, metric) for g in groups]
        xs = [j + (i - (len(configs) - 1) / 2) * width for j in range(len(groups))]
        ax.bar(xs, ys, width=width, label=c)
    ax.set_xticks(range(len(groups)), [_group_name(g) for g in groups])
    ax.set_ylabel(values.label(configs, metric))
    if any(values.base(c, metric) for c in configs):
        ax.axhline(1.0, color="black", linewidth=0.6)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _stacked(
    plt, values: _Values, metrics: list[str], configs: list[str], groups: list, title: str
):
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
    ax.set_xticks(range(len(groups)), [_group_name(g) for g in groups])
    ax.set_ylabel("share")
    ax.set_ylim(0, 1)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _averages(plt, values: _Values, metrics: list[str], configs: list[str], title: str):
    """One group per config, one bar per metric: the mean over the workloads."""
    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 * len(configs) + 3), 3.2))
    width = 0.8 / max(len(metrics), 1)
    for i, m in enumerate(metrics):
        ys = [values.normalized(c, _AVG, m) for c in configs]
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


def _lines(plt, values: _Values, spec: dict, chart: dict, configs: list[dict], title: str):
    """One metric against the parameter ``x``. With ``x`` a config's parameter: a line per
    workload, or per value of ``series`` (with several workloads, a panel per workload, its lines
    in the same colours in every panel); with ``x`` a workload's parameter: a line per config
    (and value of ``series``), its points the workloads that have it. Divided by
    ``normalized_to``'s value on the same workload if given (a label: the config with it at each
    point's parameters); ``log`` axes on a log scale."""
    x, norm = chart["x"], chart.get("normalized_to")
    series = chart.get("series", [])
    series = [series] if isinstance(series, str) else series
    metric = chart["metrics"][0]
    by_workload = not any(x in c.get("params", {}) for c in spec["configs"])
    workloads = _chart_workloads(spec, chart)
    panels = (
        [w["label"] for w in workloads]
        if series and len(workloads) > 1 and not by_workload
        else [None]
    )
    lines: dict = {}
    for w in workloads:
        for c in filter(lambda c: _runs_on(w, c), configs):
            params = {**w.get("params", {}), **c.get("params", {})}
            at = params.get(x)
            if isinstance(at, bool) or not isinstance(at, (int, float)):
                continue
            text = ", ".join(
                f"{s}={_text(params[s])}" if s in params else f"{s} none" for s in series
            )
            if by_workload:
                name = f"{_config_name(c)} {text}" if text else _config_name(c)
            else:
                name = text or w["label"]
            panel = w["label"] if panels != [None] else None
            base = _counterpart(spec, norm, c) if norm else None
            lines.setdefault(panel, {}).setdefault(name, []).append(
                (at, _config_name(c), w["label"], base)
            )
    names = list(dict.fromkeys(n for ls in lines.values() for n in ls))
    # A line named by a config's parameters (x a workload's) needs its room in any number.
    legend = _legend_width(names) or (0.07 * max(map(len, names)) if by_workload else 0.0)
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
            points.sort(key=lambda q: q[0])
            ys = []
            for _, config, w, base in points:
                v = values.mean(config, w, metric)
                if norm:
                    d = values.mean(base, w, metric)
                    v = v / d if d else math.nan
                ys.append(v)
            colour = colours[names.index(name) % len(colours)]
            ax.plot([q[0] for q in points], ys, marker="o", label=name, color=colour)
        ax.set_xlabel(x)
        for axis in chart.get("log", []):
            getattr(ax, f"set_{axis}scale")("log")
        if "x" in chart.get("log", []):
            # Less than a decade apart, log ticks label every minor tick: label the points
            # instead (page sizes 2 … 16), or leave the decades (read sizes 4 KiB … 128 MiB).
            xs = sorted({q[0] for ls in lines.values() for pts in ls.values() for q in pts})
            ax.minorticks_off()
            if len(xs) <= 8:
                ax.set_xticks(xs, [_text(v) for v in xs])
        if norm:
            ax.axhline(1.0, color="black", linewidth=0.6)
        if panel is not None:
            ax.set_title(panel, fontsize="small")
    axes[0][0].set_ylabel(f"{metric}\n(normalized)" if norm else metric, fontsize="small")
    axes[0][-1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


def _text(v) -> str:
    """A parameter's value as the engine writes it: a whole float without its ``.0``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ssdlab.plots DIR")
    for p in plot_experiment(sys.argv[1]):
        print(p)
