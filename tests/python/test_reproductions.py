"""Every committed reproduction folder (docs/reproductions/) holds what its README's command
writes today: each is rerun at full fidelity, with its plots, and compared file by file
(``scripts/reproductions.py``, which also regenerates them). The five grids take about 4 minutes
of CPU, most of it IPU's; see ``docs/experiments.md`` § Committed reproductions."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "reproductions", ROOT / "scripts" / "reproductions.py"
)
reproductions = importlib.util.module_from_spec(_spec)
# Registered before it runs: its dataclass looks its module up.
sys.modules["reproductions"] = reproductions
_spec.loader.exec_module(reproductions)

REGENERATE = "regenerate with: python scripts/reproductions.py (see its docstring)"


def test_every_committed_folder_has_one_readme_command():
    assert reproductions.committed(), "no committed reproduction found"
    assert not reproductions.coverage_problems()


def test_the_installed_package_is_this_trees():
    # Plots drawn by an older installed copy of the package are how the committed PR-SSD and IPU
    # folders came to lack the papers' charts.
    assert reproductions.installed_package_problem() is None


@pytest.mark.parametrize("repro", reproductions.commands(), ids=str)
def test_committed_folder_is_what_its_command_writes_today(repro, tmp_path):
    fresh = reproductions.run(repro, tmp_path, jobs=2)
    problems = reproductions.differences(ROOT / repro.out, fresh)
    assert not problems, f"{repro.out} is stale ({REGENERATE}):\n" + reproductions.listing(problems)


# The comparison itself, on a folder written by hand.


def _folder(path: Path, results: str = "config,workload,seed,waf\nA,w,1,1.5\n") -> Path:
    (path / "runs").mkdir(parents=True)
    (path / "plots").mkdir()
    (path / "experiment.json").write_text("{}\n")
    (path / "results.csv").write_text(results)
    (path / "report.md").write_text("# report\n")
    run = {"key": "k", "summary": {"waf": 1.5, "wall_time_s": 0.25}}
    (path / "runs" / "A--w--seed1.json").write_text(json.dumps(run, indent=2) + "\n")
    (path / "plots" / "waf.svg").write_text("<svg><!-- Matplotlib v3.11.2, --></svg>\n")
    return path


def test_identical_folders_differ_in_nothing_but_wall_time(tmp_path):
    a, b = _folder(tmp_path / "a"), _folder(tmp_path / "b")
    (a / "README.md").write_text("hand-written\n")
    _folder(a / "nested")  # another reproduction, checked on its own
    run = b / "runs" / "A--w--seed1.json"
    run.write_text(run.read_text().replace("0.25", "0.75"))
    assert reproductions.differences(a, b) == []


def test_a_changed_number_a_missing_plot_and_a_stale_file_are_found(tmp_path):
    a = _folder(tmp_path / "a", results="config,workload,seed,waf\nA,w,1,1.4\n")
    b = _folder(tmp_path / "b")
    (a / "plots" / "waf.svg").unlink()
    (a / "plots" / "old_chart.png").write_bytes(b"\x89PNG")
    run = a / "runs" / "A--w--seed1.json"
    run.write_text(run.read_text().replace('"waf": 1.5', '"waf": 1.6'))
    found = "\n".join(reproductions.differences(a, b))
    assert "results.csv: line 2 is\n    A,w,1,1.4\n" in found and "A,w,1,1.5" in found
    assert "plots/waf.svg: written by the command, not committed" in found
    assert "plots/old_chart.png: committed, but the command no longer writes it" in found
    assert "runs/A--w--seed1.json: line 4" in found


def test_plots_drawn_by_another_matplotlib_are_named(tmp_path):
    a, b = _folder(tmp_path / "a"), _folder(tmp_path / "b")
    (a / "plots" / "waf.svg").write_text("<svg><!-- Matplotlib v3.9.0, --></svg>\n")
    found = reproductions.differences(a, b)
    assert found[0].startswith("plots/waf.svg: line 1")
    assert "drawn by matplotlib 3.9.0, these by 3.11.2" in found[1]


def test_readme_commands_are_read_from_code_blocks_only(tmp_path):
    docs = tmp_path / "docs" / "reproductions" / "x"
    (docs / "y").mkdir(parents=True)
    (docs / "README.md").write_text(
        "Prose: ssdlab reproduce x --out nowhere\n\n```sh\n"
        "ssdlab reproduce x   --out docs/reproductions/x   --jobs 2  # 3 runs\n"
        "ssdlab reproduce x-y --jobs 2 --out docs/reproductions/x/y\n```\n"
    )
    for d in (docs, docs / "y", docs / "z"):
        d.mkdir(exist_ok=True)
        (d / "experiment.json").write_text("{}\n")
    found = reproductions.commands(tmp_path)
    assert [(r.name, r.out) for r in found] == [
        ("x", "docs/reproductions/x"),
        ("x-y", "docs/reproductions/x/y"),
    ]
    assert reproductions.coverage_problems(tmp_path) == [
        (
            "docs/reproductions/x/z: no README under docs/reproductions gives its "
            "`ssdlab reproduce ... --out docs/reproductions/x/z` command"
        )
    ]


def test_a_long_listing_is_cut_with_counts():
    problems = [f"runs/r{i}.json: differs" for i in range(15)] + ["plots/a.svg: differs"]
    text = reproductions.listing(problems, limit=12)
    assert text.splitlines()[-1] == "... and 4 more (3 in runs/, 1 in plots/)"


def test_a_package_that_is_not_the_trees_is_named(tmp_path):
    # A tree whose plots.py differs from the installed one, as after `pip install .` and an edit.
    source = tmp_path / "python" / "ssdlab"
    source.mkdir(parents=True)
    (source / "plots.py").write_text("# drawn differently\n")
    problem = reproductions.installed_package_problem(tmp_path)
    assert problem is not None and "(differing: plots.py)" in problem
