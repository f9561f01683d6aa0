"""``ssdlab report``: a static HTML site of the committed reproductions.

Every folder under the reproductions folder (default ``docs/reproductions``) that holds an
``experiment.json`` is an experiment's output (``ssdlab reproduce NAME --out DIR``); each
top-level folder is one paper, with its hand-written ``README.md``, and may hold more
experiments in sub-folders (SPREAD's ``table1``, PR-SSD's ``channels``). The site::

    DIR/index.html                  the papers, and the fidelity table across all of them
    DIR/PAPER/readme.html           the paper's README
    DIR/PAPER[/SUB]/index.html      an experiment's report.md, its plots as interactive charts
                                    with the paper's values marked on them
    DIR/PAPER[/SUB]/configs.html    the resolved config of each of its configs
    DIR/plotly.min.js, style.css    written once; no network, no server (opens from the disk)

The index opens with each paper's scorecard (:mod:`ssdlab.report.scorecard`): its claims
counted, and a chart of every claim, ours as a share of the paper's effect. The fidelity table
then has a row per ``[[paper.figures]]`` entry: the claim (its ``source``), its kind, the
paper's value, ours (as the report computes it, :func:`ssdlab._core.paper_comparison`), Δ on
the effect and the verdict, and the figure's ``reason``, with a link to the README's section on
why ours differ. Nothing is simulated: the site is built from the files alone.

Usage: ``ssdlab report --out DIR [--reproductions DIR]`` or ``python -m ssdlab.report``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ssdlab import __version__, _core

__all__ = ["SiteError", "build_site", "main"]


class SiteError(ValueError):
    """The reproductions folder cannot be made into a site (missing, or holding no experiment)."""


@dataclass
class _Experiment:
    folder: Path
    rel: str  # the page's folder in the site, as the experiment's below the reproductions

    @property
    def page(self) -> str:
        return f"{self.rel}/index.html"


@dataclass
class _Paper:
    folder: Path
    name: str  # short: "SPREAD", from the README's title
    title: str
    readme: str | None
    experiments: list[_Experiment]


def build_site(reproductions: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Write the site of the reproductions under ``reproductions`` into ``out`` (created if
    need be; files of an earlier build are overwritten, others left); returns its index.

    Raises :class:`SiteError` for a folder that is missing or holds no experiment, and
    :class:`ssdlab.SsdlabError` for an experiment's files the engine cannot read."""
    import plotly.offline

    from ssdlab.report import charts, pages, scorecard

    papers = _papers(Path(reproductions))
    drawn: list = []
    site = Path(out)
    site.mkdir(parents=True, exist_ok=True)
    (site / "plotly.min.js").write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    (site / "style.css").write_text(pages.STYLE, encoding="utf-8")
    fidelity: list[dict] = []
    listing: list[pages.Listed] = []
    for paper in papers:
        why = _readme_page(site, paper)
        rows = [row for e in paper.experiments for row in _experiment_pages(site, paper, e, why)]
        readme = f"{paper.folder.name}/readme.html" if paper.readme is not None else None
        pages_of = [(_label(paper, e), e.page) for e in paper.experiments]
        card = scorecard.paper_scorecard(paper)
        listing.append(pages.Listed(paper.name, paper.title, readme, pages_of, card))
        if rows:
            drawn.append(charts.scorecard(paper.name, rows))
        fidelity += rows
    nav = [("Scorecard", "#scorecard"), ("Fidelity table", "#fidelity")]
    nav += [link for p in listing for link in p.experiments]
    body = pages.index_body(__version__, listing, drawn, fidelity)
    _write(site / "index.html", pages.page("ssdlab: the papers reproduced", "", nav, body, bool(drawn)))
    return site / "index.html"


def _readme_page(site: Path, paper: _Paper) -> tuple[str, str] | None:
    """Write the paper's README page, if it has a README; returns the title and address of its
    section on why ours differ (the first heading that says "differ"), if it has one."""
    from ssdlab.report import pages

    if paper.readme is None:
        return None
    nav = [("All papers", "../index.html")] + [
        (_label(paper, e), f"../{e.page}") for e in paper.experiments
    ]
    page = pages.page(paper.title, "../", nav, pages.markdown(paper.readme), False)
    _write(site / paper.folder.name / "readme.html", page)
    for anchor, text in pages.headings(paper.readme):
        if "differ" in text.lower():
            return text, f"{paper.folder.name}/readme.html#{anchor}"
    return None


def _experiment_pages(
    site: Path, paper: _Paper, e: _Experiment, why: tuple[str, str] | None
) -> list[dict]:
    """Write the experiment's report and configs pages; returns its rows of the fidelity
    table (``why``: the README's section on differences, for each row)."""
    from ssdlab.outputs import Outputs
    from ssdlab.report import charts, pages

    root = "../" * (e.rel.count("/") + 1)
    # The engine reads the folder first: it names the file at fault in a bad one.
    rows = json.loads(_core.paper_comparison(str(e.folder)))
    outputs = Outputs.read(e.folder)
    specs = outputs.spec.get("paper", {}).get("figures", [])
    figures = [charts.PaperFigure(s, r) for s, r in zip(specs, rows)]
    drawn = charts.charts(outputs, figures)
    report = (e.folder / "report.md").read_text(encoding="utf-8")
    body = pages.report(report, {c.stem: f'<div class="chart">{c.html}</div>' for c in drawn})
    name = outputs.spec["name"]
    nav = _nav(paper, e, root)
    _write(site / e.page, pages.page(name, root, nav, body, bool(drawn)))
    runs = [
        {"name": config, "workload": w, "seed": r["seed"], "config": r["summary"]["config"]}
        for (config, w), r in outputs.runs().items()
    ]
    body = pages.configs_page_body(name, outputs.configs, runs)
    _write(site / e.rel / "configs.html", pages.page(f"Configs: {name}", root, nav, body, False))
    fidelity = []
    for f in figures:
        ours = f.row["ours"]["value"] if f.row["ours"] else None
        fidelity.append(
            {
                "paper_name": paper.name,
                "page": e.page,
                "source": f.spec["source"],
                "line": f.row["line"],
                "kind": f.row["kind"],
                "metric": f.row["metric"],
                "config": f.row["config"],
                "workload": f.row["workload"],
                "paper": f.row["paper"],
                "paper_text": f.row["paper_text"],
                "ours": ours,
                "score": f.row["score"],
                "verdict": f.row["verdict"],
                "delta_text": f.row["delta_text"],
                "reason": f.row["unmeasured"] or f.spec.get("reason"),
                "readme_why": why,
                "charts": f.charts,
            }
        )
    return fidelity


def _papers(root: Path) -> list[_Paper]:
    if not root.is_dir():
        raise SiteError(f"{root}: no such folder (the reproductions, e.g. docs/reproductions)")
    papers = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        found = sorted(folder.rglob("experiment.json"), key=lambda p: (p.parent != folder, p))
        readme_path = folder / "README.md"
        if not found:
            continue
        readme = readme_path.read_text(encoding="utf-8") if readme_path.is_file() else None
        experiments = [_Experiment(p.parent, p.parent.relative_to(root).as_posix()) for p in found]
        title = _title(readme) or json.loads(found[0].read_text())["name"]
        name = re.sub(r"\s+reproduction$", "", title.split(":")[0]) if readme else folder.name
        papers.append(_Paper(folder, name, title, readme, experiments))
    if not papers:
        raise SiteError(
            f"{root}: holds no reproduction (a folder with an experiment.json, as "
            "`ssdlab reproduce NAME --out DIR` writes it)"
        )
    return papers


def _title(readme: str | None) -> str | None:
    for line in (readme or "").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _label(paper: _Paper, e: _Experiment) -> str:
    sub = e.rel.split("/", 1)
    return paper.name if len(sub) == 1 else f"{paper.name}: {sub[1]}"


def _nav(paper: _Paper, e: _Experiment, root: str) -> list[tuple[str, str]]:
    here = f"{root}{e.rel}/"
    nav = [("All papers", f"{root}index.html")]
    if paper.readme is not None:
        nav.append(("README", f"{root}{paper.folder.name}/readme.html"))
    nav += [(_label(paper, x), f"{root}{x.page}") for x in paper.experiments]
    nav.append(("Resolved configs", f"{here}configs.html"))
    return nav


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None, prog: str = "ssdlab report") -> int:
    """The command line; returns the exit code: 0 built, 2 bad input."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Build a static HTML site of the committed reproductions: per paper its "
        "figures redrawn from our runs with the paper's values marked, the resolved configs, "
        "and a fidelity table across all papers. It opens from the file system.",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the site's folder")
    parser.add_argument(
        "--reproductions",
        default="docs/reproductions",
        metavar="DIR",
        help="the folder of reproductions, one sub-folder per paper (default: %(default)s)",
    )
    a = parser.parse_args(argv)
    try:
        index = build_site(a.reproductions, a.out)
    except (ValueError, OSError) as e:  # SiteError, SsdlabError, a file that does not parse
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    print(index)
    return 0
