"""`ssdlab report`: the static site of the reproductions.

The site of the committed reproductions is built into a scratch folder, compared byte for byte
with the committed one (``docs/site``), and opened in a real headless Chromium, Debian's
``chromium`` and ``chromium-driver`` (which ``.ci/run`` installs) driven by selenium: every page
loads without a console error and every chart is drawn by plotly. The index's screenshot is
kept at ``target/report-screenshot.png``. Without Chromium the browser test is skipped, except
under CI (``CI=true``), where it fails. A small made-up reproduction checks where the paper's
values are marked, the reasons, and the command line's exit codes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main as cli_main
from ssdlab.report import build_site

ROOT = Path(__file__).resolve().parents[2]
REPRODUCTIONS = ROOT / "docs" / "reproductions"
COMMITTED = ROOT / "docs" / "site"
SCREENSHOT = ROOT / "target" / "report-screenshot.png"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
SMALL = ROOT / "crates" / "ssdlab" / "tests" / "data" / "small.toml"
REBUILD = "rebuild it with: rm -rf docs/site && ssdlab report --out docs/site"

# Whether every chart of the page has been drawn: plotly marks its div and puts an SVG with the
# traces in it.
_DRAWN = """
const divs = [...document.querySelectorAll('div.plotly-graph-div')];
return divs.every(d => d.classList.contains('js-plotly-plot')
    && d.querySelector('svg.main-svg') && d.querySelectorAll('g.trace').length > 0);
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(REPRODUCTIONS, out)
    return out


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        why = f"no Chromium ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (.ci/run installs them)")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    # Root in CI needs --no-sandbox; a small /dev/shm needs the other.
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument("--window-size=1400,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The system's driver: selenium downloads none.
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_every_readme_carries_the_scorecard_of_its_committed_results():
    from ssdlab.report.scorecard import stale_readmes

    stale = stale_readmes(REPRODUCTIONS)
    assert not stale, f"stale scorecards in {stale}: python -m ssdlab.report.scorecard"


def test_the_committed_site_is_what_report_builds_today(site):
    assert COMMITTED.is_dir(), f"docs/site is missing: {REBUILD}"
    old, new = _files(COMMITTED), _files(site)
    problems = [f"{n}: committed, but no longer built" for n in old if n not in new]
    problems += [f"{n}: built, not committed" for n in new if n not in old]
    problems += [
        f"{n}: differs"
        for n in sorted(set(old) & set(new))
        if (COMMITTED / n).read_bytes() != (site / n).read_bytes()
    ]
    assert not problems, f"docs/site is stale ({REBUILD}):\n" + "\n".join(problems[:20])


def test_every_paper_figure_has_a_row_in_the_fidelity_table(site):
    figures = sum(
        len(json.loads(p.read_text()).get("paper", {}).get("figures", []))
        for p in REPRODUCTIONS.rglob("experiment.json")
    )
    index = (site / "index.html").read_text()
    table = index[index.index('<table class="fidelity">') :]
    assert table.count("<tr><td>") == figures
    # Each paper's README, each experiment's report and configs are pages of the site.
    for p in REPRODUCTIONS.rglob("experiment.json"):
        rel = p.parent.relative_to(REPRODUCTIONS).as_posix()
        assert f'href="{rel}/index.html"' in index
        assert (site / rel / "configs.html").is_file()
    for readme in REPRODUCTIONS.glob("*/README.md"):
        assert (site / readme.parent.name / "readme.html").is_file()
    # SPREAD's "IOPS up to 2.2× over pageFTL" is marked on the IOPS chart (Fig. 6(a)).
    row = next(r for r in table.split("<tr>") if "IOPS up to 2.2× over pageFTL" in r)
    assert 'href="spread/index.html#chart-iops"' in row


def test_every_page_loads_without_errors_and_every_chart_is_drawn(site, browser):
    from selenium.webdriver.support.ui import WebDriverWait

    pages = sorted(site.rglob("*.html"))
    charts = 0
    for page in pages:
        browser.get(page.as_uri())
        expected = len(
            re.findall(r'<div id="chart-[^"]*" class="plotly-graph-div"', page.read_text())
        )
        WebDriverWait(browser, 120).until(lambda d: d.execute_script(_DRAWN))
        drawn = browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length")
        assert drawn == expected, page
        charts += drawn
        severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe, f"{page.relative_to(site)}: {severe}"
    assert charts > 50
    # The paper's values are a trace of the chart they are marked on.
    browser.get((site / "spread" / "index.html").as_uri())
    WebDriverWait(browser, 120).until(lambda d: d.execute_script(_DRAWN))
    names = browser.execute_script(
        "return document.getElementById('chart-iops').data.map(t => t.name)"
    )
    assert names == ["pageFTL", "dmaFTL", "spFTL", "paper"]
    browser.get((site / "index.html").as_uri())
    SCREENSHOT.parent.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOT))


# A small reproduction of made-up claims, on the small test device.


def _reproduction(folder: Path) -> Path:
    """Two read policies × two generated workloads, with a chart, figures of each kind (one
    with a reason) and a README; returns the reproductions folder it is in."""
    workload = {
        "requests": 1500,
        "read_fraction": 1.0,
        "working_set_bytes": 33554432,
        "arrival": {"kind": "closed", "queue_depth": 4},
    }
    spec = {
        "name": "made up",
        "metrics": ["iops", "raf"],
        "baseline": "full",
        "absolute_metrics": ["raf"],
        "configs": [
            {
                "label": label,
                "preset": "default",
                "config_file": str(SMALL),
                "set": {"ftl.read_policy.policy": label},
            }
            for label in ("full", "dma")
        ],
        "workloads": [
            {"label": "4k", "generator": {**workload, "size": {"kind": "fixed", "bytes": 4096}}},
            {"label": "8k", "generator": {**workload, "size": {"kind": "fixed", "bytes": 8192}}},
        ],
        "charts": [{"name": "fig1", "title": "Fig. 1", "kind": "bars", "metrics": ["iops"]}],
        "paper": {
            "source": "nowhere",
            "figures": [
                {
                    "metric": "iops",
                    "config": "dma",
                    "normalized_to": "full",
                    "workload": "4k",
                    "value": 2.0,
                    "source": "Fig. 1: twice as fast",
                    "reason": "Our bus is *faster*.",
                },
                {
                    "metric": "iops",
                    "config": "dma",
                    "normalized_to": "full",
                    "average": True,
                    "value": 1.5,
                    "source": "on average",
                },
                {"metric": "raf", "config": "dma", "value": 1.0, "source": "no amplification"},
                {
                    "metric": "iops",
                    "config": "dma",
                    "minus": "full",
                    "normalized_to": "full",
                    "average": True,
                    "value": 0.5,
                    "source": "a gap",
                },
            ],
        },
    }
    ssdlab.run_grid(spec, out=folder / "paper", jobs=2)
    readme = "# Made-up reproduction: a test\n\n## Why ours differ\n\nThe bus.\n"
    (folder / "paper" / "README.md").write_text(readme)
    return folder


def test_paper_values_are_marked_where_a_chart_draws_them(tmp_path):
    repro = _reproduction(tmp_path / "repro")
    # A nested experiment is a page of the same paper.
    shutil.copytree(repro / "paper", tmp_path / "again", ignore=shutil.ignore_patterns("README.md"))
    shutil.move(tmp_path / "again", repro / "paper" / "again")
    site = tmp_path / "site"
    build_site(repro, site)
    index = (site / "index.html").read_text()
    table = index[index.index('<table class="fidelity">') :]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 8
    first, average, raf, gap = rows[:4]
    # On fig1 and the per-metric chart of iops; the README's discussion beside the reason.
    assert 'href="paper/index.html#chart-fig1">fig1</a>' in first
    assert 'href="paper/index.html#chart-iops">iops</a>' in first
    assert "Our bus is <em>faster</em>." in first
    assert 'href="paper/readme.html#why-ours-differ">README: Why ours differ</a>' in first
    assert "#chart-fig1" in average and "#chart-raf" in raf
    # A difference is drawn by no chart.
    assert "#chart-" not in gap
    assert 'href="paper/again/index.html"' in index
    assert (site / "paper" / "again" / "configs.html").is_file()
    page = (site / "paper" / "index.html").read_text()
    # The report's images are its charts, the CDFs follow; plotly.js is the site's own.
    assert "<img" not in page and '<script src="../plotly.min.js">' in page
    assert page.count('class="plotly-graph-div"') == 2 + 1 + 2
    assert "<h2>Further figures</h2>" in page
    configs = (site / "paper" / "configs.html").read_text()
    assert '"policy": "dma"' in configs and "<td>8k</td>" in configs


def test_the_command_builds_the_site_and_refuses_bad_input(tmp_path, capfd):
    repro = _reproduction(tmp_path / "repro")
    with pytest.raises(SystemExit) as exit_:
        cli_main(
            ["ssdlab", "report", "--out", str(tmp_path / "site"), "--reproductions", str(repro)]
        )
    assert exit_.value.code == 0
    assert capfd.readouterr().out.strip() == str(tmp_path / "site" / "index.html")
    empty = tmp_path / "empty"
    (empty / "nothing").mkdir(parents=True)
    (repro / "paper" / "results.csv").unlink()
    for folder, message in [
        (tmp_path / "missing", "no such folder"),
        (empty, "holds no reproduction"),
        (repro, "results.csv"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            cli_main(
                ["ssdlab", "report", "--out", str(tmp_path / "x"), "--reproductions", str(folder)]
            )
        assert exit_.value.code == 2
        assert message in capfd.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        cli_main(["ssdlab", "report", "--help"])
    assert exit_.value.code == 0 and "--reproductions" in capfd.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli_main(["ssdlab", "--help"])
    assert exit_.value.code == 0 and "report" in capfd.readouterr().out
