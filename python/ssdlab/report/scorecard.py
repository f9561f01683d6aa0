"""Each paper's scorecard in its README: the claims of its experiments (``[[paper.figures]]``)
scored on the effect by the engine (:func:`ssdlab._core.scorecard`), between two markers the
README places where the scorecard goes. Written by ``scripts/reproductions.py`` after it
regenerates the folders (or ``python -m ssdlab.report.scorecard``); ``tests/python/test_report.py``
checks that every README holds the scorecard of its committed results.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ssdlab import _core

__all__ = ["BEGIN", "END", "paper_scorecard", "stale_readmes", "write_readmes"]

BEGIN = (
    "<!-- scorecard: written from the committed results by scripts/reproductions.py; "
    "do not edit by hand -->"
)
END = "<!-- end of scorecard -->"


def paper_scorecard(paper) -> dict:
    """The engine's scorecard of ``paper`` (a ``ssdlab.report._Paper``): ``tally``,
    ``sentence`` and ``markdown``."""
    from ssdlab.report import _label

    folders = [(_label(paper, e), str(e.folder)) for e in paper.experiments]
    return json.loads(_core.scorecard(folders))


def _with_scorecard(readme: str, markdown: str, where: Path) -> str:
    if not (readme.count(BEGIN) == readme.count(END) == 1 and readme.index(BEGIN) < readme.index(END)):
        raise ValueError(f"{where}: needs one pair of scorecard markers ({BEGIN} … {END})")
    head, rest = readme.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{markdown.rstrip()}\n{END}{tail}"


def _readmes(reproductions: Path):
    from ssdlab.report import _papers

    # (A folder of no paper's claims, as the ablation's, has no scorecard.)
    for paper in _papers(reproductions):
        card = paper_scorecard(paper)
        if paper.readme is None or card["tally"]["claims"] == 0:
            continue
        path = paper.folder / "README.md"
        yield path, paper.readme, _with_scorecard(paper.readme, card["markdown"], path)


def write_readmes(reproductions: str | os.PathLike[str]) -> list[Path]:
    """Write each paper's scorecard into its README; returns the READMEs that changed."""
    changed = []
    for path, old, new in _readmes(Path(reproductions)):
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def stale_readmes(reproductions: str | os.PathLike[str]) -> list[Path]:
    """The READMEs whose scorecard is not that of their committed results."""
    return [path for path, old, new in _readmes(Path(reproductions)) if new != old]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ssdlab.report.scorecard",
        description="Write each paper's scorecard into its README (or, with --check, list the "
        "READMEs whose scorecard is stale).",
    )
    parser.add_argument("--reproductions", default="docs/reproductions", metavar="DIR")
    parser.add_argument("--check", action="store_true")
    a = parser.parse_args(argv)
    try:
        paths = stale_readmes(a.reproductions) if a.check else write_readmes(a.reproductions)
    except (ValueError, OSError) as e:
        print(f"scorecard: error: {e}", file=sys.stderr)
        return 2
    for p in paths:
        print(f"{p}: {'stale' if a.check else 'written'}")
    return 1 if a.check and paths else 0


if __name__ == "__main__":
    sys.exit(main())
