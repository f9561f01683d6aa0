"""The site's HTML: markdown rendered, the page frame, the fidelity table, the configs pages.

Markdown (each README, each ``report.md``) is rendered by markdown-it-py (CommonMark with
GitHub's tables), its headings given GitHub's anchors; a ``report.md`` image of a plot
(``![title](plots/STEM.png)``, alone in its paragraph) becomes the interactive chart ``STEM``.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin



@dataclass
class Listed:
    """A paper on the index: its name and title, its README page (or None), its experiments'
    (label, page), and its scorecard (:func:`ssdlab.report.scorecard.paper_scorecard`)."""

    name: str
    title: str
    readme: str | None
    experiments: list[tuple[str, str]]
    scorecard: dict


STYLE = """\
body { font: 15px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto; max-width: 1280px;
       padding: 0 1.5em 3em; }
nav { padding: 0.8em 0; border-bottom: 1px solid #ddd; margin-bottom: 1em; }
nav a { margin-right: 1.2em; }
a { color: #1f5fa8; text-decoration: none; }
a:hover { text-decoration: underline; }
table { border-collapse: collapse; margin: 0.8em 0 1.4em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.close { background: #e6f4e6; }
td.wrong { background: #f8dcdc; }
table.fidelity td { max-width: 26em; overflow-wrap: anywhere; }
table.fidelity td.claim { min-width: 14em; }
table.fidelity td.why { min-width: 14em; }
td.far { background: #fbeee0; }
.scroll { overflow-x: auto; }
pre { background: #f6f6f6; padding: 0.7em; overflow-x: auto; font-size: 12.5px; }
code { font-size: 92%; }
details { margin: 0.4em 0; }
summary { cursor: pointer; }
.chart { margin: 1em 0 2em; }
.note { color: #555; font-size: 13px; }
footer { margin-top: 3em; color: #777; font-size: 12px; }
"""


def markdown(text: str) -> str:
    """``text`` as HTML."""
    md = MarkdownIt("commonmark").enable("table")
    anchors_plugin(md, max_level=3)
    return md.render(text)


def report(text: str, charts: dict[str, str]) -> str:
    """A ``report.md`` as HTML, each paragraph that is only an image of ``plots/STEM.png``
    replaced by the chart ``STEM`` (``charts``: HTML by stem; an image of no chart goes), and
    the charts it has no image of (the latency CDFs) after it."""
    md = MarkdownIt("commonmark").enable("table")
    anchors_plugin(md, max_level=3)
    shown: set[str] = set()
    md.core.ruler.push("charts", lambda state: _charts_for_images(state.tokens, charts, shown))
    body = md.render(text)
    rest = [html for stem, html in charts.items() if stem not in shown]
    if rest:
        body += "\n<h2>Further figures</h2>\n" + "\n".join(rest)
    return body


def inline(text: str) -> str:
    """One line of markdown (a reason) as inline HTML."""
    return MarkdownIt("commonmark").renderInline(text)


def headings(text: str) -> list[tuple[str, str]]:
    """The (anchor, text) of each heading of a markdown text (levels 1–3), as rendered."""
    md = MarkdownIt("commonmark").enable("table")
    anchors_plugin(md, max_level=3)
    tokens = md.parse(text)
    return [
        (t.attrGet("id"), tokens[i + 1].content)
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.attrGet("id")
    ]


def _charts_for_images(tokens: list[Token], charts: dict[str, str], shown: set[str]) -> None:
    for i, t in enumerate(tokens):
        children = t.children or []
        if t.type != "inline" or len(children) != 1 or children[0].type != "image":
            continue
        src = str(children[0].attrGet("src") or "")
        if not (src.startswith("plots/") and src.endswith(".png")):
            continue
        stem = src[len("plots/") : -len(".png")]
        shown.add(stem)
        block = Token("html_block", "", 0)
        block.content = charts.get(stem, "")
        # The paragraph around the image goes too: a chart is a block of its own.
        tokens[i - 1].hidden = tokens[i + 1].hidden = True
        tokens[i] = block


def page(title: str, root: str, nav: Iterable[tuple[str, str]], body: str, plotly: bool) -> str:
    """A whole page: ``root`` is the way up to the site's folder (``""``, ``"../"``, …)."""
    links = "".join(f'<a href="{html.escape(href)}">{html.escape(t)}</a>' for t, href in nav)
    script = f'<script src="{root}plotly.min.js"></script>\n' if plotly else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        # No favicon request: the pages open from the file system.
        '<link rel="icon" href="data:,">\n'
        f'<link rel="stylesheet" href="{root}style.css">\n{script}</head>\n<body>\n'
        f"<nav>{links}</nav>\n<main>\n{body}\n</main>\n"
        "<footer>Built by <code>ssdlab report</code> from the committed reproductions; "
        "charts by plotly, from each run's results.</footer>\n</body>\n</html>\n"
    )


def num(x: float | None) -> str:
    """A number as the report writes it: three decimals, trailing zeros dropped, or
    scientific notation when very small or large."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0 or 0.01 <= abs(x) < 1e6:
        return f"{x:.3f}".rstrip("0").rstrip(".")
    return f"{x:.3e}"


# A verdict's cell colour: reproduced, the right sign only, the wrong sign, not measured.
_VERDICT_CLASS = {
    "within ±25%": "close",
    "order holds": "close",
    "right sign": "far",
    "wrong sign": "wrong",
    "not measured": "wrong",
}


def fidelity_table(rows: list[dict], root: str) -> str:
    """The paper figures next to ours: one row each, from :func:`fidelity_rows`' dicts."""
    head = (
        "<tr><th>paper</th><th>claim (paper's source)</th><th>kind</th>"
        "<th>metric · config · workload</th><th>paper</th><th>ours</th><th>Δ effect</th>"
        "<th>verdict</th><th>why ours differ</th><th>chart</th></tr>"
    )
    out = [f'<div class="scroll"><table class="fidelity">\n{head}']
    for r in rows:
        verdict = r["verdict"]
        why = inline(r["reason"]) if r["reason"] else ""
        if r["readme_why"] and (r["reason"] or verdict != "within ±25%"):
            text, href = r["readme_why"]
            more = f'<a href="{root}{href}">README: {html.escape(text)}</a>'
            why = f"{why}<br>{more}" if why else more
        charts = "<br>".join(
            f'<a href="{root}{r["page"]}#chart-{html.escape(s)}">{html.escape(s)}</a>'
            for s in r["charts"]
        )
        what = " · ".join(html.escape(t) for t in (r["metric"], r["config"], r["workload"]) if t)
        source = r["source"] + (f" (line {r['line']})" if r["line"] is not None else "")
        out.append(
            f'<tr><td><a href="{root}{r["page"]}">{html.escape(r["paper_name"])}</a></td>'
            f'<td class="claim">{html.escape(source)}</td><td>{html.escape(r["kind"])}</td>'
            f'<td><code>{what}</code></td>'
            f'<td class="num">{html.escape(r["paper_text"])}</td><td class="num">{num(r["ours"])}</td>'
            f'<td class="num">{r["delta_text"]}</td>'
            f'<td class="{_VERDICT_CLASS[verdict]}">{html.escape(verdict)}</td>'
            f'<td class="why">{why}</td><td>{charts}</td></tr>'
        )
    out.append("</table></div>")
    return "\n".join(out)


def index_body(version: str, papers: list[Listed], charts: list, fidelity: list[dict]) -> str:
    """The index: a row per paper with its scorecard's tally, each paper's scorecard chart
    (``charts``), then the fidelity table of all."""
    rows = []
    for p in papers:
        t = p.scorecard["tally"]
        links = "<br>".join(f'<a href="{page}">{html.escape(t)}</a>' for t, page in p.experiments)
        readme_link = f'<a href="{p.readme}">README</a>' if p.readme else "—"
        rows.append(
            f"<tr><td><b>{html.escape(p.name)}</b><br>{html.escape(p.title)}</td>"
            f"<td>{readme_link}</td><td>{links}</td>"
            + "".join(
                f'<td class="num">{t[k]}</td>'
                for k in ("claims", "results", "right_sign", "within", "unmeasured")
            )
            + "</tr>"
        )
    drawn = "\n".join(f'<div class="chart">{c.html}</div>' for c in charts)
    return (
        "<h1>ssdlab: the papers reproduced</h1>\n"
        f"<p>ssdlab {html.escape(version)}. Each paper's experiments were run by "
        "<code>ssdlab reproduce</code> (the command is in its README); their pages give the "
        "report with every figure as an interactive chart, the paper's own values marked on "
        "the same axes as black diamonds, and the resolved config of every config. Rebuild "
        "with <code>ssdlab report --out DIR</code>.</p>\n"
        '<h2 id="scorecard">Scorecard</h2>\n'
        '<p class="note">Every claim of the papers that a reproduction lists '
        "(<code>[[paper.figures]]</code>), scored on the effect: Δ = (ours − null) / (paper − "
        "null) − 1, null being the value of no effect (1 for a ratio, 0 otherwise). Of the "
        "results (inputs and calibrated values are listed, not counted): how many lie on the "
        "paper's side of null, how many within ±25% of its effect, how many the grid does not "
        "measure.</p>\n"
        "<table><tr><th>paper</th><th>discussion</th><th>experiments</th><th>claims</th>"
        "<th>results</th><th>right sign</th><th>within ±25%</th><th>not measured</th></tr>\n"
        + "\n".join(rows)
        + "</table>\n"
        + drawn
        + '\n<h2 id="fidelity">Fidelity: the papers\' figures and ours</h2>\n'
        '<p class="note">One row per claim: the paper\'s value, ours (means over seeds; a '
        "figure over all workloads takes the average, or the best workload for an \"up to\"), "
        "Δ on the effect and the verdict (green within ±25%, amber the right sign only, red the "
        "wrong sign or not measured), why ours differ (the figure's <code>reason</code>, and the "
        "README's discussion), and the charts it is marked on.</p>\n"
        + fidelity_table(fidelity, "")
    )


def configs_page_body(name: str, configs: list[str], runs: list[dict]) -> str:
    """Each config's resolved config (its first run's, as ``runs/*.json`` holds it) and, per
    workload it runs, the keys whose values differ there (the workload's flows, its ``set``)."""
    by_config: dict[str, list[dict]] = {c: [] for c in configs}
    for r in runs:
        by_config.setdefault(r["name"], []).append(r)
    note = (
        "Each config in full as its first run resolved it (preset, config file, overrides, the "
        "workload's flows and overrides, seed), then for its runs on the other workloads the "
        "keys that differ; every run's <code>seed</code> is its own. Every run's summary holds "
        "its config (<code>runs/*.json</code> of the reproduction)."
    )
    parts = [f"<h1>Resolved configs: {html.escape(name)}</h1>", f'<p class="note">{note}</p>']
    for i, c in enumerate(configs):
        own = by_config.get(c, [])
        if not own:
            continue
        first = own[0]
        base = _flat(first["config"])
        rows = []
        seen = set()
        for r in own[1:]:
            if r["workload"] in seen or r["workload"] == first["workload"]:
                continue
            seen.add(r["workload"])
            flat = _flat(r["config"])
            for k in sorted(set(base) | set(flat)):
                if k != "seed" and base.get(k) != flat.get(k):
                    value = flat.get(k, "(absent)")
                    rows.append(
                        f"<tr><td>{html.escape(r['workload'])}</td><td><code>{html.escape(k)}"
                        f"</code></td><td><code>{html.escape(value)}</code></td></tr>"
                    )
        text = json.dumps(first["config"], indent=2, ensure_ascii=False)
        differs = (
            '<p>On the other workloads:</p><div class="scroll"><table><tr><th>workload</th>'
            f"<th>key</th><th>value</th></tr>{''.join(rows)}</table></div>"
            if rows
            else ""
        )
        parts.append(
            f'<details id="config-{i}"><summary><code>{html.escape(c)}</code></summary>'
            f"<p>On <code>{html.escape(first['workload'])}</code>, seed {first['seed']}:</p>"
            f"<pre>{html.escape(text, quote=False)}</pre>{differs}</details>"
        )
    return "\n".join(parts)


def _flat(value, prefix: str = "") -> dict[str, str]:
    """A config's leaves by dotted key (a list is one leaf), as JSON text."""
    if isinstance(value, dict) and value:
        out: dict[str, str] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: json.dumps(value, ensure_ascii=False)}
