"""An experiment's output folder as the plots and the site read it.

``ssdlab experiment`` and ``ssdlab reproduce`` write ``experiment.json`` (the experiment as
read, its configs expanded and named), ``results.csv`` (one row per run) and ``runs/*.json``
(each run's summary, with its resolved config). :class:`Outputs` reads them and gives the
numbers the figures draw, the same for the matplotlib plots (:mod:`ssdlab.plots`) and the
interactive site (:mod:`ssdlab.report`): means over seeds, divided by each config's baseline
(``_Values``), the configs and workloads a chart draws, a ``lines`` chart's lines, and an
``[ablation]``'s effects (each technique alone and in the full set, the report's numbers).

A baseline or ``normalized_to`` that is a label (not a config's name) stands for the config with
that label at each config's parameters; a workload's ``where`` leaves out the configs that do
not run it, and its AVG is over the workloads it runs.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AVG",
    "Effects",
    "Lines",
    "Outputs",
    "chart_configs",
    "config_name",
    "counterpart",
    "group_name",
]


def config_name(config: dict) -> str:
    """A config's name: the engine writes it into experiment.json when it has parameters."""
    return config.get("name", config["label"])


def counterpart(spec: dict, reference: str, config: dict) -> str | None:
    """The name of the config ``reference`` stands for beside ``config``: the config of that
    name, else the one labelled so at ``config``'s parameters."""
    for c in spec["configs"]:
        if config_name(c) == reference:
            return reference
    for c in spec["configs"]:
        if c["label"] == reference and c.get("params", {}) == config.get("params", {}):
            return config_name(c)
    return None


def chart_configs(spec: dict, chart: dict) -> list[dict]:
    """The configs a chart draws: its ``configs`` (names, or labels standing for every config
    with that label), or all; with a ``where``, those whose parameters have its values."""
    every = spec["configs"]
    chosen = every
    if chart.get("configs"):
        chosen = []
        for want in chart["configs"]:
            named = [c for c in every if config_name(c) == want]
            chosen += named or [c for c in every if c["label"] == want]
    columns = _param_columns(spec)
    where = {k: v for k, v in chart.get("where", {}).items() if k in columns}
    return [c for c in chosen if all(c.get("params", {}).get(k) == v for k, v in where.items())]


# The last group of the bar charts: the mean over the workloads (not a workload's label).
AVG = object()


def group_name(g) -> str:
    return "AVG" if g is AVG else g


def text(v) -> str:
    """A parameter's value as the engine writes it: a whole float without its ``.0``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@dataclass
class Lines:
    """A ``lines`` chart's points. ``panels``: ``[None]``, or a workload's label per panel (a
    ``series`` over several workloads); ``lines``: per panel, per line name, its points
    ``(x, y, config name, workload label)`` ordered by x; ``names``: every line's name, in
    order (a line keeps its colour across panels)."""

    x: str
    metric: str
    normalized: bool
    by_workload: bool
    panels: list
    lines: dict
    names: list[str]


@dataclass
class Effects:
    """An ``[ablation]``'s effects on one metric (:meth:`Outputs.ablation`), means over seeds,
    as report.md's ``## Ablation`` tables have them: per workload ``total``, the full set
    against ``none``; per (technique, workload) ``alone``, the technique alone against
    ``none``, and ``in_set``, the full set against the full set without it (the reciprocal of
    the report's "left out"). Ratios, or differences for an absolute metric (``absolute``);
    NaN where a divisor is 0. :meth:`interaction` is the report's interaction column."""

    metric: str
    absolute: bool
    techniques: list[str]
    workloads: list[str]
    total: dict[str, float]
    alone: dict[tuple[str, str], float]
    in_set: dict[tuple[str, str], float]

    @property
    def neutral(self) -> float:
        """The value of no effect: 1 for a ratio, 0 for a difference."""
        return 0.0 if self.absolute else 1.0

    def interaction(self, technique: str, workload: str) -> float:
        """The technique's effect in the set against its effect alone (÷, or − for an absolute
        metric): 1 (0) where it does in the set what it does alone."""
        a, s = self.alone[(technique, workload)], self.in_set[(technique, workload)]
        if self.absolute:
            return s - a
        return s / a if a else math.nan


class Outputs:
    """An experiment's numbers: ``spec`` (experiment.json), ``configs`` (names) and
    ``workloads`` (labels) in order, ``groups`` (the workloads, and AVG with several),
    ``values`` (the means over seeds, by workload and config name, and their ratios to the
    baselines). :meth:`read` reads them from an output folder."""

    def __init__(self, spec: dict, means, folder: Path | None = None) -> None:
        self.spec = spec
        self.dir = folder
        self.configs = [config_name(c) for c in spec["configs"]]
        self.workloads = [w["label"] for w in spec["workloads"]]
        self.groups = self.workloads + ([AVG] if len(self.workloads) > 1 else [])
        self.values = _Values(spec, means)

    @classmethod
    def read(cls, out_dir: str | os.PathLike[str]) -> Outputs:
        """The outputs in a folder: experiment.json, results.csv, and runs/ for :meth:`runs`."""
        import pandas

        folder = Path(out_dir)
        spec = json.loads((folder / "experiment.json").read_text())
        params = _param_columns(spec)
        # Parameters as the engine wrote them (text), so that a row's config name is the engine's.
        as_text = params + _workload_param_columns(spec)
        results = pandas.read_csv(folder / "results.csv", dtype={p: str for p in as_text})
        if params:
            results["config"] = [_row_name(row, params) for row in results.to_dict("records")]
        means = results.groupby(["workload", "config"], sort=False).mean(numeric_only=True)
        return cls(spec, means, folder)

    def bar_metrics(self) -> list[str]:
        """The metrics with a bar chart of their own (``bar_metrics``, default all)."""
        return self.spec.get("bar_metrics", self.spec["metrics"])

    def runs(self) -> dict[tuple[str, str], dict]:
        """Each (config name, workload)'s first run record (by file name), with its summary."""
        assert self.dir is not None, "runs are read from an output folder (Outputs.read)"
        runs: dict[tuple[str, str], dict] = {}
        for path in sorted((self.dir / "runs").glob("*.json")):
            r = json.loads(path.read_text())
            # A config with parameters is filed under its name: NAME--WORKLOAD--seedN.json.
            name = path.stem[: -len(f"--{r['workload']}--seed{r['seed']}")]
            runs.setdefault((name, r["workload"]), r)
        return runs

    def ablation(self, metric: str) -> Effects | None:
        """The ``[ablation]``'s effects on ``metric``, or None for an experiment without one. Its
        configs are labelled by the techniques they turn on (``none``, ``compression``,
        ``compression+partial``, …: docs/experiments.md, "Ablation"); a config that ran on a
        workload but whose summaries lack the metric (a technique's counter, while it is off)
        counts 0 there, as in the report."""
        ablation = self.spec.get("ablation")
        if ablation is None:
            return None
        names = [t["name"] for t in ablation["techniques"]]
        label = lambda on: "+".join(on) or "none"  # noqa: E731
        absolute = metric in self.values.absolute
        every = label(names)

        def effect(x: str, y: str, w: str) -> float:
            a, b = self.values.counted(x, w, metric), self.values.counted(y, w, metric)
            if absolute:
                return a - b
            return a / b if b else math.nan

        total, alone, in_set = {}, {}, {}
        for w in self.workloads:
            total[w] = effect(every, "none", w)
            for t in names:
                alone[(t, w)] = effect(t, "none", w)
                in_set[(t, w)] = effect(every, label([n for n in names if n != t]), w)
        return Effects(metric, absolute, names, list(self.workloads), total, alone, in_set)

    def lines(self, chart: dict) -> Lines:
        """A ``lines`` chart's points: one metric against the parameter ``x``. With ``x`` a
        config's parameter: a line per workload, or per value of ``series`` (with several
        workloads, a panel per workload); with ``x`` a workload's parameter: a line per config
        (and value of ``series``), its points the workloads that have it. Divided by
        ``normalized_to``'s value on the same workload if given (a label: the config with it at
        each point's parameters)."""
        spec, values = self.spec, self.values
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
        found: dict = {}
        for w in workloads:
            for c in filter(lambda c: _runs_on(w, c), chart_configs(spec, chart)):
                params = {**w.get("params", {}), **c.get("params", {})}
                at = params.get(x)
                if isinstance(at, bool) or not isinstance(at, (int, float)):
                    continue
                named = ", ".join(
                    f"{s}={text(params[s])}" if s in params else f"{s} none" for s in series
                )
                if by_workload:
                    name = f"{config_name(c)} {named}" if named else config_name(c)
                else:
                    name = named or w["label"]
                panel = w["label"] if panels != [None] else None
                base = counterpart(spec, norm, c) if norm else None
                found.setdefault(panel, {}).setdefault(name, []).append(
                    (at, config_name(c), w["label"], base)
                )
        lines: dict = {}
        for panel, named in found.items():
            for name, points in named.items():
                points.sort(key=lambda q: q[0])
                drawn = []
                for at, config, w, base in points:
                    v = values.mean(config, w, metric)
                    if norm:
                        d = values.mean(base, w, metric)
                        v = v / d if d else math.nan
                    drawn.append((at, v, config, w))
                lines.setdefault(panel, {})[name] = drawn
        names = list(dict.fromkeys(n for ls in lines.values() for n in ls))
        return Lines(x, metric, bool(norm), by_workload, panels, lines, names)


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


def _row_name(row: dict, params: list[str]) -> str:
    """The name of a results.csv row's config, ``label[a=1,b=x]``, as the engine writes it."""
    given = sorted(p for p in params if isinstance(row[p], str))
    if not given:
        return row["config"]
    return f"{row['config']}[{','.join(f'{p}={row[p]}' for p in given)}]"


def _chart_workloads(spec: dict, chart: dict) -> list[dict]:
    """The workloads a chart draws: those whose parameters have the values its ``where`` gives
    the workloads' parameters."""
    columns = _workload_param_columns(spec)
    where = {k: v for k, v in chart.get("where", {}).items() if k in columns}
    return [
        w
        for w in spec["workloads"]
        if all(w.get("params", {}).get(k) == v for k, v in where.items())
    ]


class _Values:
    """Means over seeds, and the same divided by each config's baseline (the report's numbers)."""

    def __init__(self, spec: dict, means) -> None:
        self.means = means
        self.absolute = set(spec.get("absolute_metrics", []))
        default = spec.get("baseline")
        self.baseline = {
            config_name(c): counterpart(spec, c["baseline"], c) if "baseline" in c else default
            for c in spec["configs"]
        }
        # The workloads each config runs (all, unless a workload's `where` leaves it out).
        self.runs = {
            config_name(c): [w["label"] for w in spec["workloads"] if _runs_on(w, c)]
            for c in spec["configs"]
        }

    def mean(self, config: str, workload: str, metric: str) -> float:
        try:
            return float(self.means.loc[(workload, config), metric])
        except KeyError:
            return math.nan

    def counted(self, config: str, workload: str, metric: str) -> float:
        """:meth:`mean`, or 0 where the config ran on the workload and its summaries lack the
        metric (the report's ablation tables count a technique's absent counters so)."""
        v = self.mean(config, workload, metric)
        if math.isnan(v) and (workload, config) in self.means.index:
            return 0.0
        return v

    def base(self, config: str, metric: str) -> str | None:
        """The config ``config``'s values of ``metric`` are divided by, if any."""
        return None if metric in self.absolute else self.baseline.get(config)

    def normalized(self, config: str, workload, metric: str) -> float:
        """On one workload, or the mean over the workloads for ``AVG``."""
        if workload is AVG:
            return _mean([self.normalized(config, w, metric) for w in self.runs[config]])
        v = self.mean(config, workload, metric)
        b = self.base(config, metric)
        if b is None:
            return v
        d = self.mean(b, workload, metric)
        return v / d if d else math.nan

    def shares(self, config: str, workload, metrics: list[str]) -> list[float]:
        """Each part's share of the parts' sum; for ``AVG`` the mean share over the workloads."""
        if workload is AVG:
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
