"""The charts of an ``[ablation]``: for each metric of ``bar_metrics``, each technique's
contribution (alone against none, and the full set against the full set without it), drawn by
the plots (``ssdlab.plots``) and the site (``ssdlab.report.charts``) from the same numbers
(``Outputs.ablation``), and present in the committed ablation (``docs/reproductions/ablation``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from ssdlab.outputs import Outputs
from ssdlab.plots import plot_experiment

ROOT = Path(__file__).resolve().parents[2]
ABLATION = ROOT / "docs" / "reproductions" / "ablation"
SITE = ROOT / "docs" / "site" / "ablation" / "index.html"

TECHNIQUES = ["a", "b", "c"]
# Each technique's factor on `lat` alone; a and b together add a factor 0.5 more (they interact),
# c does the same with or without the others. `waf` adds each one's step; `counter` is in the
# summaries only while c is on (a technique's counter), 5 a run.
FACTOR = {"a": 0.8, "b": 1.25, "c": 2.0}
STEP = {"a": -0.25, "b": 0.5, "c": 0.0}


def _ablation(folder: Path) -> Path:
    """A made-up ablation's outputs: experiment.json and results.csv, as the engine writes them."""
    sets = [[], ["a"], ["b"], ["c"], ["b", "c"], ["a", "c"], ["a", "b"], ["a", "b", "c"]]
    spec = {
        "name": "made-up ablation",
        "metrics": ["lat", "waf", "counter"],
        "absolute_metrics": ["waf", "counter"],
        "bar_metrics": ["lat", "waf", "counter"],
        "baseline": "none",
        "latency_cdfs": False,
        "configs": [{"label": "+".join(s) or "none", "techniques": s} for s in sets],
        "ablation": {"techniques": [{"name": t, "set": {}} for t in TECHNIQUES]},
        "workloads": [{"label": "w1"}, {"label": "w2"}],
    }
    (folder / "runs").mkdir(parents=True)
    (folder / "experiment.json").write_text(json.dumps(spec))
    rows = ["config,workload,seed,lat,waf,counter"]
    for s in sets:
        lat = 100 * math.prod(FACTOR[t] for t in s) * (0.5 if {"a", "b"} <= set(s) else 1)
        waf = 1 + sum(STEP[t] for t in s)
        counter = "5" if "c" in s else ""
        for w, scale in (("w1", 1), ("w2", 2)):
            rows.append(f"{'+'.join(s) or 'none'},{w},1,{lat * scale},{waf},{counter}")
    (folder / "results.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_the_effects_are_the_reports_numbers(tmp_path):
    out = Outputs.read(_ablation(tmp_path))
    lat = out.ablation("lat")
    assert lat.techniques == TECHNIQUES and not lat.absolute and lat.neutral == 1
    for w in ("w1", "w2"):
        assert lat.total[w] == pytest.approx(0.8 * 1.25 * 2 * 0.5)
        # Alone: X ÷ none; in the set: all ÷ all without X, the reciprocal of "left out".
        assert lat.alone[("a", w)] == pytest.approx(0.8)
        assert lat.in_set[("a", w)] == pytest.approx(0.8 * 0.5)
        assert lat.interaction("a", w) == pytest.approx(0.5)
        assert lat.interaction("c", w) == pytest.approx(1.0)
    waf = out.ablation("waf")
    assert waf.absolute and waf.neutral == 0
    assert waf.alone[("b", "w1")] == pytest.approx(0.5)
    assert waf.in_set[("b", "w1")] == pytest.approx(0.5)
    # A counter missing from a config's summaries counts 0 there, as in report.md.
    counter = out.ablation("counter")
    assert counter.alone[("c", "w1")] == 5 and counter.in_set[("c", "w1")] == 5
    assert counter.alone[("a", "w1")] == 0
    # An experiment without an [ablation] has none.
    spec = json.loads((tmp_path / "experiment.json").read_text())
    del spec["ablation"]
    assert Outputs(spec, out.values.means).ablation("lat") is None


def test_each_bar_metric_gets_a_contribution_chart(tmp_path):
    import matplotlib

    out = _ablation(tmp_path)
    # Text as SVG <text> elements instead of glyph paths, so the chart's texts can be read back.
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        files = plot_experiment(out)
    assert sorted(p.name for p in files) == sorted(
        f"{m}.{ext}" for m in ("lat", "waf", "counter") for ext in ("png", "svg")
    )
    svg = (out / "plots" / "lat.svg").read_text()
    # A panel per workload, a row per technique, the effects written beside the bars.
    texts = ("w1", "w2", "alone: X alone ÷ none", "in the set: the full set ÷", "0.80×", "0.40×")
    for text in texts:
        assert f">{text}" in svg, text
    # Not the bars per config of an experiment without an [ablation].
    assert "a+b+c" not in svg
    waf = (out / "plots" / "waf.svg").read_text()
    assert ">alone: X alone − none<" in waf and ">-0.25<" in waf and ">+0.50<" in waf


def test_the_site_draws_the_same_charts(tmp_path):
    from ssdlab.report import charts

    drawn = charts.charts(Outputs.read(_ablation(tmp_path)), [])
    assert [c.stem for c in drawn] == ["lat", "waf", "counter"]
    lat = drawn[0].html
    # The figure's texts, as plotly writes them into the page (JSON, non-ASCII escaped).
    for text in ("the full set without X", "0.80×", "interaction (in the set ÷ alone): 0.50×"):
        assert json.dumps(text)[1:-1] in lat, text
    assert 'id="chart-lat"' in lat


def test_the_committed_ablation_has_its_charts():
    spec = json.loads((ABLATION / "experiment.json").read_text())
    metrics = spec.get("bar_metrics")
    assert metrics, "experiments/ablation.toml draws no contribution chart (bar_metrics)"
    report = (ABLATION / "report.md").read_text()
    site = SITE.read_text()
    for m in metrics:
        stem = m.replace(".", "_")
        for ext in ("png", "svg"):
            assert (ABLATION / "plots" / f"{stem}.{ext}").is_file(), f"plots/{stem}.{ext}"
        assert f"![{m}](plots/{stem}.png)" in report
        assert f'id="chart-{stem}"' in site
