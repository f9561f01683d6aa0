"""Tests of experiment grids from Python: `ssdlab.run_grid`, the plots, and the console script's
`experiment` and `reproduce` commands, on the small test device and committed traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import ssdlab
from ssdlab import SsdlabError
from ssdlab.cli import main as cli_main
from ssdlab.plots import plot_experiment

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "crates" / "ssdlab" / "tests" / "data" / "small.toml"
MSR = ROOT / "traces" / "msr_hm_0_first1000.csv.gz"


def grid() -> dict:
    return {
        "name": "python grid",
        "metrics": ["iops", "latency_ns.read.mean", "raf"],
        "seeds": [1, 2],
        "baseline": "full",
        "configs": [
            {
                "label": label,
                "preset": "default",
                "config_file": str(SMALL),
                "set": {"ftl.read_policy.policy": label, "host.out_of_range": "wrap"},
            }
            for label in ("full", "dma")
        ],
        "workloads": [
            {"label": "hm_0", "trace": str(MSR), "format": "msr", "mode": "closed"},
            {
                "label": "reads",
                "generator": {
                    "requests": 2000,
                    "read_fraction": 1.0,
                    "working_set_bytes": 33554432,
                    "read_size": {"kind": "choice", "bytes": [4096, 8192], "weights": [3, 2]},
                    "arrival": {"kind": "closed", "queue_depth": 4},
                },
            },
        ],
    }


def test_run_grid_returns_one_row_per_run_with_metric_columns():
    df = ssdlab.run_grid(grid(), jobs=2)
    assert list(df.columns) == ["config", "workload", "seed", "iops", "latency_ns.read.mean", "raf"]
    assert len(df) == 2 * 2 * 2
    assert set(df.config) == {"full", "dma"}
    # dma moves only the wanted codewords: never slower than full page reads on the same run.
    pivot = df.pivot_table(index=["workload", "seed"], columns="config", values="latency_ns.read.mean")
    assert (pivot["dma"] <= pivot["full"]).all()
    # Both sense whole pages, so they amplify reads alike.
    raf = df.pivot_table(index=["workload", "seed"], columns="config", values="raf")
    assert (raf["dma"] == raf["full"]).all()


def test_run_grid_with_out_caches_writes_csv_and_plots(tmp_path):
    out = tmp_path / "out"
    first = ssdlab.run_grid(grid(), out=out, jobs=2)
    again = ssdlab.run_grid(grid(), out=out, jobs=2)
    assert first.equals(again)
    assert (out / "results.csv").read_text().startswith("config,workload,seed,iops,")
    runs = sorted(p.name for p in (out / "runs").glob("*.json"))
    assert len(runs) == 8 and "dma--hm_0--seed1.json" in runs
    record = json.loads((out / "runs" / "dma--hm_0--seed1.json").read_text())
    assert record["summary"]["config"]["ftl"]["read_policy"]["policy"] == "dma"
    for name in ("iops", "latency_ns_read_mean", "raf", "latency_cdf_hm_0", "latency_cdf_reads"):
        for ext in ("png", "svg"):
            f = out / "plots" / f"{name}.{ext}"
            assert f.is_file() and f.stat().st_size > 1000, f
    assert (out / "plots" / "iops.png").read_bytes()[:4] == b"\x89PNG"
    # Drawing again gives the same files, so committed plots only change with the results.
    svg = (out / "plots" / "iops.svg").read_bytes()
    plot_experiment(out)
    assert (out / "plots" / "iops.svg").read_bytes() == svg


def test_run_grid_keeps_each_preconditioned_device_once(tmp_path):
    """Configs that differ only in their read policy, under a trace and a generator, share a
    device (the footprint each workload reads is written after the snapshot): one snapshot per
    seed, and the rows of preconditioning every run afresh."""
    spec = grid()
    for c in spec["configs"]:
        c["set"]["precondition.fill_fraction"] = 0.9
        c["set"]["precondition.overwrite_fraction"] = 0.5
    kept = ssdlab.run_grid(spec, out=tmp_path / "kept", jobs=2, plots=False)
    afresh = ssdlab.run_grid(spec, out=tmp_path / "afresh", jobs=2, plots=False, snapshots=False)
    assert kept.equals(afresh)
    assert len(list((tmp_path / "kept" / "snapshots").glob("*.snapshot"))) == 2
    assert not (tmp_path / "afresh" / "snapshots").exists()


def test_simulate_loads_a_saved_device_with_the_same_results(tmp_path):
    sets = {"precondition.fill_fraction": 0.9, "host.out_of_range": "wrap"}

    def run(**kw):
        s = ssdlab.simulate(SMALL, trace=MSR, set=sets, progress=False, **kw).summary
        del s["wall_time_s"]
        return s

    fresh = run()
    assert run(snapshot=tmp_path) == fresh  # saved
    (saved,) = tmp_path.glob("*.snapshot")
    assert run(snapshot=tmp_path) == fresh  # loaded
    assert run(snapshot=saved) == fresh
    with pytest.raises(ssdlab.SsdlabError, match="device snapshot refused: it is of another"):
        ssdlab.simulate(SMALL, trace=MSR, set={**sets, "seed": 9}, snapshot=saved)
    # A damaged file is an SsdlabError, which `except Exception` catches, naming the file.
    data = bytearray(saved.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 8):
        data[i] ^= 0xFF
    saved.write_bytes(data)
    with pytest.raises(ssdlab.SsdlabError, match=f"{saved}: device snapshot damaged"):
        run(snapshot=saved)


def test_a_grid_rebuilds_a_damaged_snapshot_and_keeps_its_finished_runs(tmp_path):
    """Every snapshot of a grid's `snapshots/` damaged and its `runs/` deleted: the rerun
    rebuilds each snapshot and writes the rows of the first run."""
    spec = grid()
    spec["workloads"] = spec["workloads"][:1]
    spec["seeds"] = [1]
    for c in spec["configs"]:
        c["set"]["precondition.fill_fraction"] = 0.9
    first = ssdlab.run_grid(spec, out=tmp_path, jobs=2, plots=False)
    snapshots = list((tmp_path / "snapshots").glob("*.snapshot"))
    assert snapshots
    for f in snapshots:
        data = bytearray(f.read_bytes())
        for i in range(len(data) // 2, len(data) // 2 + 8):
            data[i] ^= 0xFF
        f.write_bytes(data)
    shutil.rmtree(tmp_path / "runs")
    again = ssdlab.run_grid(spec, out=tmp_path, jobs=2, plots=False)
    assert again.equals(first)
    assert len(list((tmp_path / "runs").glob("*.json"))) == len(first)
    assert len(list((tmp_path / "snapshots").glob("*.snapshot.damaged"))) == len(snapshots)


def test_absolute_metrics_are_plotted_unnormalized(tmp_path):
    import matplotlib

    out = tmp_path / "out"
    g = grid()
    g["absolute_metrics"] = ["raf"]
    ssdlab.run_grid(g, out=out, jobs=2)
    # Text as SVG <text> elements instead of glyph paths, so the axis labels can be read back.
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        plot_experiment(out)
    assert "normalized to full" in (out / "plots" / "iops.svg").read_text()
    raf = (out / "plots" / "raf.svg").read_text()
    assert "normalized to" not in raf and ">raf<" in raf


def test_bar_metrics_limit_the_per_metric_bar_charts(tmp_path):
    out = tmp_path / "out"
    g = grid()
    g["bar_metrics"] = ["raf"]
    ssdlab.run_grid(g, out=out, jobs=2)
    drawn = sorted(p.name for p in (out / "plots").iterdir())
    # raf's bar chart and the CDFs only; the report keeps every metric's table.
    assert drawn == sorted(
        f"{n}.{ext}" for n in ("raf", "latency_cdf_hm_0", "latency_cdf_reads") for ext in ("png", "svg")
    )
    report = (out / "report.md").read_text()
    assert "### `iops`" in report and "(plots/iops.png)" not in report
    assert "(plots/raf.png)" in report
    g["bar_metrics"] = ["nope"]
    with pytest.raises(SsdlabError, match=r"bar_metrics\[0\]"):
        ssdlab.run_grid(g)


def test_bad_grids_raise_naming_the_key():
    g = grid()
    g["baseline"] = "nope"
    with pytest.raises(SsdlabError, match="baseline"):
        ssdlab.run_grid(g)
    g = grid()
    g["workloads"][1]["generator"]["read_fraction"] = 2.0
    with pytest.raises(SsdlabError, match="read_fraction"):
        ssdlab.run_grid(g)


def test_console_script_reproduce_writes_report_and_plots(tmp_path, monkeypatch, capfd):
    experiments = tmp_path / "experiments"
    experiments.mkdir()
    text = (ROOT / "experiments" / "example.toml").read_text()
    # The example's traces are relative to experiments/: point them at the repository's.
    text = text.replace("../traces/", str(ROOT / "traces") + "/")
    (experiments / "example.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli_main(["ssdlab", "reproduce", "example", "--jobs", "2"])
    assert exit_.value.code == 0, capfd.readouterr().err
    out = tmp_path / "reproductions" / "example"
    report = (out / "report.md").read_text()
    assert "| iops / pageFTL | dmaFTL | best (" in report
    assert (out / "plots" / "iops.png").is_file()
    assert (out / "plots" / "latency_cdf_websearch.svg").is_file()
    with pytest.raises(SystemExit) as exit_:
        cli_main(["ssdlab", "reproduce", "no-such"])
    assert exit_.value.code == 2
    assert "no experiment `no-such`" in capfd.readouterr().err
    shutil.rmtree(out)


def test_simulate_runs_named_workloads_and_lists_them():
    assert "spread-kv" in ssdlab.workloads() and "pr-ssd-db" in ssdlab.workloads()
    assert "Table II" in ssdlab.workload_toml("spread-kv")
    with pytest.raises(SsdlabError, match="unknown workload `nope`"):
        ssdlab.workload_toml("nope")
    # A named workload with a key replaced, through `set`, and one given by name.
    r = ssdlab.simulate(
        "spread",
        set={"flows": [{"workload": "spread-usr", "generator": {"requests": 3000}}]},
        verify=True,
    )
    s = r.summary
    assert s["requests"]["count"] == 3000
    assert s["integrity"]["violations"] == 0
    assert s["config"]["flows"][0]["generator"]["read_fraction"] == 0.7
    with pytest.raises(SsdlabError, match="unknown workload"):
        ssdlab.simulate("spread", workload="no-such-workload")


def test_charts_draw_the_papers_layouts_with_an_average_group(tmp_path):
    """Charts from experiment.json and results.csv alone: a subset of configs with the AVG group,
    a stacked breakdown, averages per config over the workloads with per-config baselines."""
    import matplotlib

    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    spec = {
        "name": "charts",
        "metrics": ["lat", "parts.a", "parts.b"],
        "absolute_metrics": ["parts.a", "parts.b"],
        "baseline": "base",
        "configs": [
            {"label": "base"},
            {"label": "X"},
            {"label": "base2", "baseline": "base2"},
            {"label": "X2", "baseline": "base2"},
        ],
        "workloads": [{"label": "w1"}, {"label": "w2"}],
        "charts": [
            {"name": "fig_lat", "title": "Fig. L", "metrics": ["lat"], "configs": ["X"]},
            {"name": "fig_parts", "kind": "stacked", "metrics": ["parts.a", "parts.b"]},
            {"name": "fig_sweep", "kind": "average", "metrics": ["lat"], "configs": ["X", "X2"]},
        ],
    }
    (out / "experiment.json").write_text(json.dumps(spec))
    rows = [
        ("base", "w1", 100, 0, 0),
        ("base", "w2", 200, 0, 0),
        ("X", "w1", 80, 3, 1),
        ("X", "w2", 120, 1, 1),
        ("base2", "w1", 50, 0, 0),
        ("base2", "w2", 100, 0, 0),
        ("X2", "w1", 25, 1, 1),
        ("X2", "w2", 100, 1, 1),
    ]
    (out / "results.csv").write_text(
        "config,workload,seed,lat,parts.a,parts.b\n"
        + "".join(f"{c},{w},1,{lat},{a},{b}\n" for c, w, lat, a, b in rows)
    )
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        files = plot_experiment(out)
    names = {p.name for p in files}
    for stem in ("lat", "parts_a", "fig_lat", "fig_parts", "fig_sweep"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names, stem
    lat = (out / "plots" / "fig_lat.svg").read_text()
    assert ">AVG<" in lat and ">Fig. L<" in lat and "normalized to base" in lat
    # X2 is divided by its own baseline, so the sweep's axis names no single baseline.
    assert "normalized to each config" in (out / "plots" / "lat.svg").read_text()
    # The drawn bar heights are the report's numbers: X / base = 0.8, 0.6, AVG 0.7.
    from ssdlab.outputs import AVG, Outputs

    values = Outputs.read(out).values
    assert values.normalized("X", "w1", "lat") == pytest.approx(0.8)
    assert values.normalized("X", AVG, "lat") == pytest.approx(0.7)
    assert values.normalized("X2", AVG, "lat") == pytest.approx(0.75)
    assert values.shares("X", AVG, ["parts.a", "parts.b"]) == pytest.approx([0.625, 0.375])


def test_a_lines_chart_with_a_series_draws_a_panel_per_workload():
    """A `lines` chart with `series` over several workloads: a panel per workload, a line per
    series value in each (the same colour in every panel), each point divided by `normalized_to`
    on its own workload."""
    import matplotlib
    import pandas

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ssdlab.outputs import Outputs
    from ssdlab.plots import _lines

    configs = [
        {"label": c, "name": f"{c}[set={s},share={x}]", "params": {"share": float(x), "set": s}}
        for c, x in (("B", "0"), ("R", "0.5"))
        for s in ("p1", "p2")
    ]
    spec = {"metrics": ["lat"], "configs": configs, "workloads": [{"label": "w1"}, {"label": "w2"}]}
    lat = {("B", "p1"): 10, ("B", "p2"): 20, ("R", "p1"): 5, ("R", "p2"): 30}
    rows = [
        (f"{c}[set={s},share={'0' if c == 'B' else '0.5'}]", w, v * (1 if w == "w1" else 2))
        for (c, s), v in lat.items()
        for w in ("w1", "w2")
    ]
    means = pandas.DataFrame(rows, columns=["config", "workload", "lat"]).groupby(
        ["workload", "config"]
    ).mean()
    chart = {"x": "share", "series": "set", "metrics": ["lat"], "normalized_to": "B[set=p2,share=0]"}
    fig = _lines(plt, Outputs(spec, means), chart, "Fig. 2")
    panels = [ax for ax in fig.axes if ax.get_lines()]
    assert [ax.get_title() for ax in panels] == ["w1", "w2"]
    for ax in panels:
        drawn = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
        # The horizontal line at 1 has no label of ours; each series' points are divided by
        # B[set=p2] on the same workload (20 on w1, 40 on w2: the ratios are the same).
        assert drawn["set=p1"] == pytest.approx([0.5, 0.25])
        assert drawn["set=p2"] == pytest.approx([1.0, 1.5])
    colour = [{line.get_label(): line.get_color() for line in ax.get_lines()} for ax in panels]
    assert colour[0]["set=p1"] == colour[1]["set=p1"] != colour[0]["set=p2"]
    plt.close(fig)


def test_lines_against_a_workload_parameter_and_labels_standing_for_the_same_point(tmp_path):
    """Melded pages' layout: x a workload's parameter (a line per config, over the workloads
    that have it, on log axes), series of two parameters, `normalized_to` a label (each point
    divided by the config with that label at its parameters), a workload's `where` leaving
    configs out of it and of their AVG, and no latency CDFs."""
    import matplotlib
    import pandas

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ssdlab.outputs import AVG, Outputs
    from ssdlab.plots import _lines

    configs = [
        {"label": c, "name": f"{c}[bits={b},rate={r:g}]", "params": {"bits": b, "rate": r}}
        | ({"baseline": "normal"} if c == "melded" else {})
        for c in ("normal", "melded")
        for b in (8, 16)
        for r in (400.0, 800.0)
    ]
    base = {"bits": 8, "rate": 800.0}
    spec = {
        "metrics": ["lat"],
        "latency_cdfs": False,
        "configs": configs,
        "workloads": [
            {"label": "4KiB", "params": {"kib": 4}, "where": base},
            {"label": "1MiB", "params": {"kib": 1024}, "where": base},
            {"label": "block", "params": {"kib": 131072}},
            {"label": "trace", "where": base},
        ],
    }
    lat = {"4KiB": 60.0, "1MiB": 300.0, "block": 40000.0, "trace": 100.0}
    rows = []
    for c in configs:
        for w in spec["workloads"]:
            if all(c["params"].get(k) == v for k, v in w.get("where", {}).items()):
                factor = 1.0 if c["label"] == "normal" else 0.5 + 0.5 * (w["label"] != "block")
                scale = 800.0 / c["params"]["rate"]
                rows.append((c["name"], w["label"], lat[w["label"]] * factor * scale))
    means = pandas.DataFrame(rows, columns=["config", "workload", "lat"]).groupby(
        ["workload", "config"]
    ).mean()
    out = Outputs(spec, means)
    values = out.values
    # The label baseline is the same point of `normal`; the AVG is over the workloads run.
    assert values.baseline["melded[bits=16,rate=400]"] == "normal[bits=16,rate=400]"
    assert values.normalized("melded[bits=16,rate=400]", AVG, "lat") == pytest.approx(0.5)
    assert values.normalized("melded[bits=8,rate=800]", AVG, "lat") == pytest.approx(
        (1 + 1 + 0.5 + 1) / 4
    )
    by_size = {"x": "kib", "metrics": ["lat"], "where": base, "log": ["x", "y"]}
    fig = _lines(plt, out, by_size, "Table 3")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    drawn = {line.get_label(): (list(line.get_xdata()), list(line.get_ydata())) for line in ax.get_lines()}
    assert drawn["melded[bits=8,rate=800]"] == ([4, 1024, 131072], [60.0, 300.0, 20000.0])
    assert set(drawn) == {"normal[bits=8,rate=800]", "melded[bits=8,rate=800]"}
    plt.close(fig)
    gain = {
        "x": "rate",
        "series": ["bits", "kib"],
        "metrics": ["lat"],
        "where": {"kib": 131072},
        "normalized_to": "normal",
        "configs": ["melded"],
    }
    fig = _lines(plt, out, gain, "Fig. 7")
    drawn = {line.get_label(): list(line.get_ydata()) for line in fig.axes[0].get_lines()}
    assert drawn["bits=8, kib=131072"] == pytest.approx([0.5, 0.5])
    assert drawn["bits=16, kib=131072"] == pytest.approx([0.5, 0.5])
    plt.close(fig)
    # Without CDFs, the plots are the charts' alone.
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    (out / "experiment.json").write_text(
        json.dumps({**spec, "bar_metrics": [], "charts": [{"name": "t3", "kind": "lines", **by_size}]})
    )
    by_name = {c["name"]: c for c in configs}
    kib = {w["label"]: w.get("params", {}).get("kib", "") for w in spec["workloads"]}
    text = "config,workload,seed,kib,bits,rate,lat\n" + "".join(
        f"{by_name[n]['label']},{w},1,{kib[w]},{by_name[n]['params']['bits']},"
        f"{by_name[n]['params']['rate']:g},{v}\n"
        for n, w, v in rows
    )
    (out / "results.csv").write_text(text)
    names = sorted(p.name for p in plot_experiment(out))
    assert names == ["t3.png", "t3.svg"]
