"""An experiment's figures as interactive plotly charts, with the paper's values marked.

The charts are the plots :mod:`ssdlab.plots` draws with matplotlib, from the same numbers
(:class:`ssdlab.outputs.Outputs`), under the same stems (``plots/STEM.png`` is chart ``STEM``):
a bar chart per metric of ``bar_metrics`` (with an ``[ablation]``, each technique's contribution
to the metric instead), each ``[[charts]]`` entry, a read-latency CDF per workload. A paper
figure is marked on a chart, a black diamond at the paper's value, where the chart draws the
same quantity: the same metric of the config and workload (or AVG group) where
ours was found, divided by the same config (a bar's baseline, a line chart's
``normalized_to``). Differences (``minus``), shares (``share_of``) and ratios of two metrics
(``per``) are drawn by no chart; the fidelity table gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from ssdlab.outputs import (
    AVG,
    Effects,
    Outputs,
    chart_configs,
    config_name,
    counterpart,
    group_name,
    text,
)
from ssdlab.plots import (
    ABLATION_COLOURS,
    ablation_axis,
    ablation_legend,
    ablation_text,
    ablation_ticks,
    ablation_title,
)

# plotly.js's own colours, which are matplotlib's too: a config has the colour of its PNG.
_COLOURS = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
]
_PATTERNS = ["", "/", ".", "x", "\\", "+"]
# No server and no network: plotly.js is loaded once by the page, the charts only call it.
_CONFIG = {"displaylogo": False, "responsive": True}


@dataclass
class PaperFigure:
    """One ``[[paper.figures]]`` entry (``spec``) and the engine's comparison row for it
    (``row``: ``ours`` with where it was found, the report's texts); ``charts``: the stems of
    the charts it is marked on, filled in as they are drawn."""

    spec: dict
    row: dict
    charts: list[str] = field(default_factory=list)


@dataclass
class Chart:
    stem: str
    title: str
    html: str


def charts(out: Outputs, figures: list[PaperFigure]) -> list[Chart]:
    """Every chart of the experiment, in the order the plots are drawn."""
    spec, values = out.spec, out.values
    drawn = []
    for metric in out.bar_metrics():
        stem = metric.replace(".", "_")
        effects = out.ablation(metric)
        if effects is not None:
            drawn.append(_chart(stem, metric, _ablation(effects)))
            continue
        marks = _bar_marks(out, figures, metric, out.configs, stem)
        fig = _bars(values, metric, out.configs, out.groups, metric, marks)
        drawn.append(_chart(stem, metric, fig))
    for chart in spec.get("charts", []):
        kind, stem = chart.get("kind", "bars"), chart["name"]
        chosen = [config_name(c) for c in chart_configs(spec, chart)]
        title = chart.get("title") or stem
        if kind == "lines":
            fig = _lines(out, chart, title, figures)
        elif kind == "bars":
            metric = chart["metrics"][0]
            marks = _bar_marks(out, figures, metric, chosen, stem)
            fig = _bars(values, metric, chosen, out.groups, title, marks)
        elif kind == "stacked":
            fig = _stacked(values, chart["metrics"], chosen, out.groups, title)
        else:
            fig = _averages(out, chart["metrics"], chosen, title, figures, stem)
        drawn.append(_chart(stem, title, fig))
    runs = out.runs()
    for w in out.workloads if spec.get("latency_cdfs", True) else []:
        fig = _cdf(runs, out.configs, w)
        if fig is not None:
            drawn.append(_chart(f"latency_cdf_{w}", f"read latency CDF: {w}", fig))
    return drawn


def _chart(stem: str, title: str, fig: go.Figure) -> Chart:
    height = fig.layout.height
    html = pio.to_html(
        fig,
        config=_CONFIG,
        include_plotlyjs=False,
        full_html=False,
        div_id=f"chart-{stem}",
        default_height=f"{height}px",
    )
    return Chart(stem, title, html)


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    fig.update_layout(
        template="none",
        title={"text": title, "font": {"size": 15}},
        height=height,
        margin={"l": 70, "r": 20, "t": 60, "b": 50},
        barmode="overlay",
        legend={"font": {"size": 11}},
        hoverlabel={"align": "left"},
    )
    return fig


def _positions(n: int, groups: int) -> tuple[float, list[list[float]]]:
    """The width of a bar and the x of each of ``n`` bars in each group, as the PNGs place them."""
    width = 0.8 / max(n, 1)
    return width, [[j + (i - (n - 1) / 2) * width for j in range(groups)] for i in range(n)]


def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _bars(values, metric, configs, groups, title, marks) -> go.Figure:
    """One group per workload (and AVG), one bar per config; the paper's values marked."""
    fig = go.Figure()
    width, xs = _positions(len(configs), len(groups))
    names = [group_name(g) for g in groups]
    for i, c in enumerate(configs):
        fig.add_bar(
            x=xs[i],
            y=[_finite(values.normalized(c, g, metric)) for g in groups],
            width=width,
            name=c,
            marker_color=_COLOURS[i % len(_COLOURS)],
            customdata=names,
            hovertemplate=f"{c}<br>%{{customdata}}: %{{y:.4g}}<extra></extra>",
        )
    if any(values.base(c, metric) for c in configs):
        fig.add_hline(y=1.0, line_width=0.6, line_color="black")
    at = {(c, g): xs[i][j] for i, c in enumerate(configs) for j, g in enumerate(names)}
    _mark(fig, [(at[(c, group_name(g))], f) for c, g, f in marks])
    fig.update_xaxes(tickvals=list(range(len(groups))), ticktext=names)
    fig.update_yaxes(title_text=values.label(configs, metric).replace("\n", "<br>"))
    return _layout(fig, title)


def _ablation(effects: Effects) -> go.Figure:
    """Each technique's contribution to one metric, as :func:`ssdlab.plots._ablation` draws it:
    a panel per workload (two a row), per technique a bar alone and one in the full set from
    the line at no effect, the full set against none first; the hover adds the interaction."""
    workloads, techniques, neutral = effects.workloads, effects.techniques, effects.neutral
    cols = min(len(workloads), 2)
    rows = -(-len(workloads) // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        shared_xaxes=True,
        shared_yaxes=True,
        subplot_titles=workloads,
        horizontal_spacing=0.06,
        vertical_spacing=0.22 / rows,
    )
    legend = ablation_legend(effects.absolute)
    labels = ["all"] + techniques
    by = "−" if effects.absolute else "÷"
    for k, w in enumerate(workloads):
        row, col = k // cols + 1, k % cols + 1
        bars = {
            "total": [(0.0, "all", effects.total[w], "")],
            "alone": [],
            "in_set": [],
        }
        for i, t in enumerate(techniques, 1):
            inter = ablation_text(effects.interaction(t, w), effects.absolute)
            note = f"<br>interaction (in the set {by} alone): {inter}"
            bars["alone"].append((i - 0.2, t, effects.alone[(t, w)], note))
            bars["in_set"].append((i + 0.2, t, effects.in_set[(t, w)], note))
        for kind, points in bars.items():
            shown = [p for p in points if p[2] == p[2] and (effects.absolute or p[2] > 0)]
            fig.add_bar(
                y=[p[0] for p in shown],
                x=[p[2] - neutral for p in shown],
                base=neutral,
                orientation="h",
                width=0.76 if kind == "total" else 0.38,
                name=legend[kind],
                legendgroup=kind,
                showlegend=k == 0,
                marker_color=ABLATION_COLOURS[kind],
                text=[ablation_text(p[2], effects.absolute) for p in shown],
                textposition="outside",
                textfont={"size": 10},
                cliponaxis=False,
                customdata=[[p[1], ablation_text(p[2], effects.absolute), p[3]] for p in shown],
                hovertemplate=f"{w}<br>%{{customdata[0]}}, {legend[kind]}: "
                "%{customdata[1]}%{customdata[2]}<extra></extra>",
                row=row,
                col=col,
            )
    scale, (lo, hi) = ablation_axis(effects)
    if scale == "log":
        ticks = ablation_ticks(lo, hi)
        fig.update_xaxes(
            type="log",
            range=[math.log10(lo), math.log10(hi)],
            tickvals=ticks,
            ticktext=[f"{t:g}×" for t in ticks],
        )
    else:
        fig.update_xaxes(range=[lo, hi])
    fig.add_vline(x=neutral, line_width=0.8, line_color="black")
    fig.update_yaxes(
        tickvals=list(range(len(labels))),
        ticktext=labels,
        range=[len(labels) - 0.5, -0.5],
    )
    how = "difference" if effects.absolute else "ratio"
    fig.update_xaxes(title_text=f"{effects.metric}: {how}", row=rows)
    _layout(fig, ablation_title(effects.metric), height=140 + rows * (32 * len(labels) + 40))
    fig.update_layout(legend={"orientation": "h", "y": -0.06 - 0.1 / rows, "x": 0})
    return fig


def _stacked(values, metrics, configs, groups, title) -> go.Figure:
    """One group per workload (and AVG), one bar per config stacking the parts' shares (a
    colour per part, a pattern per config)."""
    fig = go.Figure()
    width, xs = _positions(len(configs), len(groups))
    names = [group_name(g) for g in groups]
    for i, c in enumerate(configs):
        shares = [values.shares(c, g, metrics) for g in groups]
        bottom = [0.0] * len(groups)
        for k, m in enumerate(metrics):
            ys = [s[k] for s in shares]
            fig.add_bar(
                x=xs[i],
                y=[_finite(y) for y in ys],
                base=[_finite(b) for b in bottom],
                width=width,
                name=f"{c}: {m}",
                marker={
                    "color": _COLOURS[k % len(_COLOURS)],
                    "pattern": {"shape": _PATTERNS[i % len(_PATTERNS)]},
                    "line": {"color": "black", "width": 0.4},
                },
                customdata=names,
                hovertemplate=f"{c}: {m}<br>%{{customdata}}: %{{y:.4g}}<extra></extra>",
            )
            bottom = [b + y for b, y in zip(bottom, ys)]
    fig.update_xaxes(tickvals=list(range(len(groups))), ticktext=names)
    fig.update_yaxes(title_text="share", range=[0, 1])
    return _layout(fig, title)


def _averages(out: Outputs, metrics, configs, title, figures, stem) -> go.Figure:
    """One group per config, one bar per metric: the mean over the workloads."""
    values = out.values
    fig = go.Figure()
    width, xs = _positions(len(metrics), len(configs))
    for i, m in enumerate(metrics):
        fig.add_bar(
            x=xs[i],
            y=[_finite(values.normalized(c, AVG, m)) for c in configs],
            width=width,
            name=m,
            marker_color=_COLOURS[i % len(_COLOURS)],
            customdata=configs,
            hovertemplate=f"{m}<br>%{{customdata}}: %{{y:.4g}}<extra></extra>",
        )
    bases = {values.base(c, m) for c in configs for m in metrics}
    if bases != {None}:
        fig.add_hline(y=1.0, line_width=0.6, line_color="black")
    marks = []
    for f in figures:
        if _derived(f.spec) or not f.spec.get("average") or f.spec["metric"] not in metrics:
            continue
        place = _place(f, configs)
        if place is not None and _same_base(
            out, f, place[0], values.base(place[0], f.spec["metric"])
        ):
            i, j = metrics.index(f.spec["metric"]), configs.index(place[0])
            marks.append((xs[i][j], f))
            f.charts.append(stem)
    _mark(fig, marks)
    fig.update_xaxes(tickvals=list(range(len(configs))), ticktext=configs)
    label = "average over workloads" + ("" if bases == {None} else " (normalized)")
    fig.update_yaxes(title_text=label)
    return _layout(fig, title)


def _lines(out: Outputs, chart: dict, title: str, figures) -> go.Figure:
    """One metric against a parameter (:meth:`Outputs.lines`): a panel per workload when the
    chart has a ``series`` over several, each line in one colour in every panel."""
    data = out.lines(chart)
    panels = data.panels
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        subplot_titles=None if panels == [None] else panels,
        horizontal_spacing=0.04,
    )
    shown: set[str] = set()
    where: dict = {}
    for col, panel in enumerate(panels, 1):
        for name, points in data.lines.get(panel, {}).items():
            colour = _COLOURS[data.names.index(name) % len(_COLOURS)]
            fig.add_scatter(
                x=[p[0] for p in points],
                y=[_finite(p[1]) for p in points],
                mode="lines+markers",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
                line_color=colour,
                customdata=[f"{p[2]}, {p[3]}" for p in points],
                hovertemplate=f"{name}<br>{data.x} = %{{x}}: %{{y:.4g}}<br>%{{customdata}}"
                "<extra></extra>",
                row=1,
                col=col,
            )
            shown.add(name)
            for at, _, config, w in points:
                where[(config, w)] = (at, col)
    norm = chart.get("normalized_to")
    marks: dict[int, list] = {}
    for f in figures:
        s = f.spec
        ours = f.row.get("ours")
        if _derived(s) or s["metric"] != data.metric or s.get("average") or not ours:
            continue
        point = where.get((ours["config"], ours["workload"]))
        config = _config(out, ours["config"])
        want = counterpart(out.spec, norm, config) if norm else None
        if point is not None and _same_base(out, f, ours["config"], want):
            marks.setdefault(point[1], []).append((point[0], f))
            f.charts.append(chart["name"])
    for col, placed in marks.items():
        _mark(fig, placed, row=1, col=col)
    log = chart.get("log", [])
    if "x" in log:
        fig.update_xaxes(type="log")
        xs = sorted({p[0] for ls in data.lines.values() for pts in ls.values() for p in pts})
        if len(xs) <= 8:
            fig.update_xaxes(tickvals=xs, ticktext=[text(v) for v in xs])
    if "y" in log:
        fig.update_yaxes(type="log")
    if data.normalized:
        fig.add_hline(y=1.0, line_width=0.6, line_color="black", row="all", col="all")
    fig.update_xaxes(title_text=data.x)
    label = f"{data.metric}<br>(normalized)" if data.normalized else data.metric
    fig.update_yaxes(title_text=label, row=1, col=1)
    return _layout(fig, title, height=460)


def _cdf(runs: dict, configs: list[str], workload: str) -> go.Figure | None:
    """The read-latency CDF of each config on one workload (its first seed's run)."""
    fig = go.Figure()
    for i, c in enumerate(configs):
        r = runs.get((c, workload))
        cdf = r and r["summary"]["latency_ns"]["read"].get("cdf")
        if not cdf:
            continue
        fig.add_scatter(
            x=[n / 1000 for _, n in cdf],
            y=[q for q, _ in cdf],
            mode="lines+markers",
            name=c,
            line_color=_COLOURS[i % len(_COLOURS)],
            hovertemplate=f"{c}<br>%{{x:.4g}} µs: %{{y:.4g}}<extra></extra>",
        )
    if not fig.data:
        return None
    fig.update_xaxes(type="log", title_text="read latency (µs)")
    fig.update_yaxes(title_text="fraction of reads")
    return _layout(fig, f"read latency CDF: {workload}")


def _mark(fig: go.Figure, placed: list, **where) -> None:
    """The paper's values, at their x, as black diamonds; the hover says where from."""
    if not placed:
        return
    hover = []
    for _, f in placed:
        ours = f.row.get("ours")
        ours_text = "—" if not ours else f"{ours['value']:.4g} ({ours['found']})"
        hover.append(f"{f.spec['source']}<br>ours: {ours_text}")
    fig.add_scatter(
        x=[x for x, _ in placed],
        y=[f.spec["value"] for _, f in placed],
        mode="markers",
        name="paper",
        legendgroup="paper",
        showlegend=not any(t.name == "paper" for t in fig.data),
        marker={
            "symbol": "diamond",
            "size": 11,
            "color": "black",
            "line": {"color": "white", "width": 1},
        },
        hovertext=hover,
        hovertemplate="paper: %{y:.4g}<br>%{hovertext}<extra></extra>",
        **where,
    )


def _bar_marks(out: Outputs, figures, metric: str, configs: list[str], stem: str) -> list:
    """The paper figures a bar chart of ``metric`` over ``configs`` draws: (config, group,
    figure) for each, the group AVG for an average over the workloads."""
    marks = []
    for f in figures:
        if _derived(f.spec) or f.spec["metric"] != metric:
            continue
        place = _place(f, configs)
        if place is None or not _same_base(out, f, place[0], out.values.base(place[0], metric)):
            continue
        config, group = place
        if group is AVG and AVG not in out.groups:
            continue
        marks.append((config, group, f))
        f.charts.append(stem)
    return marks


def _place(f: PaperFigure, configs: list[str]):
    """Where ours was found, (config, workload or AVG), if among ``configs``."""
    ours = f.row.get("ours")
    if not ours or ours["config"] not in configs:
        return None
    return ours["config"], AVG if f.spec.get("average") else ours["workload"]


def _same_base(out: Outputs, f: PaperFigure, config: str, drawn: str | None) -> bool:
    """Whether the figure divides ``config``'s value by the config the chart divides it by."""
    reference = f.spec.get("normalized_to")
    want = counterpart(out.spec, reference, _config(out, config)) if reference else None
    return want == drawn


def _config(out: Outputs, name: str) -> dict:
    return next(c for c in out.spec["configs"] if config_name(c) == name)


def _derived(figure: dict) -> bool:
    """A figure no chart draws: a difference, a share of several metrics, a ratio of two, a
    comparison across workloads, a claim of order alone, a claim not measured."""
    keys = ("minus", "share_of", "per", "over_workload", "unmeasured", "order")
    return any(figure.get(k) for k in keys)


# A scorecard point's colour by verdict (the fidelity table's colours, deeper).
_VERDICT_COLOURS = {
    "within ±25%": "#2ca02c",
    "order holds": "#2ca02c",
    "right sign": "#ff7f0e",
    "wrong sign": "#d62728",
}
# Ours' share of the paper's effect is drawn within this range; beyond it, at its edge.
_SHARE_RANGE = (-1.5, 3.5)


def scorecard(paper: str, rows: list[dict]) -> Chart:
    """A paper's claims (its fidelity rows), paper against ours: for each claim, ours as a share
    of the paper's effect (Δ + 1: 1 is the paper's, 0 no effect, below 0 the opposite sign),
    the paper at 1, the ±25% band shaded. Inputs and calibrated values are hollow; a claim of
    order alone (no value) is a triangle at 1 when the order holds, at −1 when not; a claim not
    measured is a grey cross at the left edge."""
    lo, hi = _SHARE_RANGE
    labels = [f"{i + 1}. {r['source'][:70]}" for i, r in enumerate(rows)]
    fig = go.Figure()
    fig.add_vrect(x0=0.75, x1=1.25, fillcolor="#2ca02c", opacity=0.12, line_width=0)
    fig.add_vline(x=0, line_color="#777", line_dash="dot")
    fig.add_scatter(
        x=[1.0] * len(rows),
        y=labels,
        mode="markers",
        name="paper",
        marker={"symbol": "diamond", "size": 10, "color": "black"},
        hovertext=[f"paper: {r['paper_text']}" for r in rows],
        hovertemplate="%{hovertext}<extra></extra>",
    )
    for verdict, colour in [*_VERDICT_COLOURS.items(), ("not measured", "#999")]:
        chosen = [(i, r) for i, r in enumerate(rows) if r["verdict"] == verdict]
        if not chosen:
            continue
        x = [_share(r, lo, hi) for _, r in chosen]
        hover = [
            f"{r['source']}<br>{r['kind']}: paper {r['paper_text']}, ours "
            + ("—" if r["ours"] is None else f"{r['ours']:.4g}")
            + ("" if not r["score"] or r["score"]["delta"] is None else f", Δ {r['score']['delta']:+.0%}")
            for _, r in chosen
        ]
        fig.add_scatter(
            x=x,
            y=[labels[i] for i, _ in chosen],
            mode="markers",
            name=f"ours: {verdict}",
            marker={
                "symbol": [_symbol(r) for _, r in chosen],
                "size": 10,
                "color": colour,
                "line": {"width": 2},
            },
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
        )
    fig.update_xaxes(range=[lo - 0.1, hi + 0.1], title_text="ours as a share of the paper's effect (1: the paper's; 0: no effect)")
    fig.update_yaxes(autorange="reversed", tickfont={"size": 10}, type="category")
    _layout(fig, f"{paper}: every claim, paper against ours", height=120 + 22 * len(rows))
    fig.update_layout(margin={"l": 420})
    stem = "scorecard_" + "".join(c if c.isalnum() else "_" for c in paper.lower())
    return _chart(stem, f"{paper} scorecard", fig)


def _share(row: dict, lo: float, hi: float) -> float:
    """Where a scorecard chart draws ours: its share of the paper's effect, within the range."""
    score = row["score"]
    if score is None:
        return lo
    if score["delta"] is None:  # a claim of order alone
        return 1.0 if score["within"] else -1.0
    return min(max(score["delta"] + 1, lo), hi)


def _symbol(row: dict) -> str:
    if row["score"] is None:
        return "x"
    shape = "triangle-right" if row["score"]["delta"] is None else "circle"
    return shape if row["kind"] == "result" else f"{shape}-open"
