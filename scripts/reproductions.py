#!/usr/bin/env python3
"""The committed reproductions (``docs/reproductions/``): regenerate them, or check that each
folder holds what its command writes today.

A folder's command is the ``ssdlab reproduce NAME --out DIR`` line that a README under
``docs/reproductions/`` gives in a code block; every folder there that holds an
``experiment.json`` needs exactly one. The command is run as the ``ssdlab`` console script runs
it, so the plots are drawn too, from the repository root (regenerating) or from a scratch folder
that sees the repository's ``experiments/`` at the same relative path (checking), so that the
paths written into ``report.md`` and ``runs/*.json`` are the committed ones.

Usage, from anywhere, with the package of this tree installed (``pip install -e '.[test]'``)::

    python scripts/reproductions.py [--jobs N] [DIR ...]          # regenerate in place
    python scripts/reproductions.py --check [--jobs N] [DIR ...]  # rerun elsewhere, compare

``DIR`` is a folder as the README names it (``docs/reproductions/pr-ssd/channels``); without
one, every committed reproduction. ``tests/python/test_reproductions.py`` runs the check.
Regenerating also writes each paper's scorecard into its README (``ssdlab.report.scorecard``)
and rebuilds the site of the reproductions (``docs/site``, ``ssdlab report``), which
``tests/python/test_report.py`` compares with what it builds from the committed folders.

What a check compares: the set of file names (a plot or a run too many or missing fails), and
every file byte for byte, except the ``wall_time_s`` line of ``runs/*.json`` (the summary's only
key that differs between identical runs, ``docs/results.md``). Plots too: matplotlib writes the
same PNG and SVG bytes for the same figure (no date, a fixed SVG id salt, its own fonts), for
one matplotlib version, which the ``test`` extra pins.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPRODUCTIONS = Path("docs") / "reproductions"
SITE = Path("docs") / "site"
# Where an experiment keeps its device snapshots, in its output folder.
SNAPSHOTS = "snapshots"

# A README's command line: `ssdlab reproduce NAME ... --out DIR ...` (options in any order).
_COMMAND = re.compile(r"^\s*ssdlab\s+reproduce\s+(?P<args>[^#]*)")
# Of a run's summary, the one line that differs between identical runs.
_WALL_TIME = re.compile(rb'^\s*"wall_time_s": [^\n]*\n', re.MULTILINE)
# A matplotlib SVG names its maker in its metadata.
_SVG_MAKER = re.compile(rb"Matplotlib v([^,<]+)")


@dataclass(frozen=True)
class Reproduction:
    """One committed folder and the experiment that writes it."""

    name: str  # experiments/NAME.toml
    out: str  # the folder, relative to the repository root, as the README writes it
    readme: str  # where the command is, for messages

    def __str__(self) -> str:
        return self.out


def commands(root: Path = ROOT) -> list[Reproduction]:
    """The ``ssdlab reproduce`` lines of the code blocks of the READMEs under docs/reproductions."""
    found = []
    for readme in sorted((root / REPRODUCTIONS).rglob("README.md")):
        in_code = False
        for line in readme.read_text().splitlines():
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            m = _COMMAND.match(line) if in_code else None
            if m is None:
                continue
            args = m["args"].split()
            if "--out" not in args or args.index("--out") + 1 >= len(args):
                raise ValueError(f"{readme.relative_to(root)}: `{line.strip()}` names no --out")
            out = args[args.index("--out") + 1]
            found.append(Reproduction(args[0], out, str(readme.relative_to(root))))
    return found


def committed(root: Path = ROOT) -> list[str]:
    """The committed reproduction folders: those under docs/reproductions with an experiment.json."""
    return sorted(
        str(p.parent.relative_to(root)) for p in (root / REPRODUCTIONS).rglob("experiment.json")
    )


def coverage_problems(root: Path = ROOT) -> list[str]:
    """Folders without exactly one command, and commands whose folder is not committed."""
    cmds = commands(root)
    outs = [c.out for c in cmds]
    folders = committed(root)
    problems = [
        f"{f}: no README under {REPRODUCTIONS} gives its `ssdlab reproduce ... --out {f}` command"
        for f in folders
        if f not in outs
    ]
    problems += [
        f"{o}: {outs.count(o)} README commands write it"
        for o in sorted(set(outs))
        if outs.count(o) > 1
    ]
    problems += [
        f"{c.readme}: `--out {c.out}` is not a committed folder"
        for c in cmds
        if c.out not in folders
    ]
    return problems


def generated(folder: Path) -> list[str]:
    """The files of ``folder`` that its command writes and the repository keeps: all but
    README.md, the device snapshots (``snapshots/``, kept beside the result cache, not
    committed) and the nested reproductions (sub-folders with their own experiment.json), as
    sorted relative paths."""
    nested = [p.parent for p in folder.rglob("experiment.json") if p.parent != folder]
    nested.append(folder / SNAPSHOTS)
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file()
        and p.relative_to(folder) != Path("README.md")
        and not any(n in p.parents for n in nested)
    )


def installed_package_problem(root: Path = ROOT) -> str | None:
    """Why the ``ssdlab`` that this Python imports is not this tree's, if it is not.

    The committed PR-SSD and IPU plots once lacked the papers' charts because they were drawn by
    a copy installed (``pip install .``) before the charts existed."""
    spec = importlib.util.find_spec("ssdlab")
    if spec is None or not spec.submodule_search_locations:
        return f"no ssdlab package for {sys.executable}: pip install -e '{root}[test]'"
    installed = Path(next(iter(spec.submodule_search_locations)))
    source = root / "python" / "ssdlab"
    stale = [
        str(rel)
        for rel in sorted(p.relative_to(source) for p in source.rglob("*.py"))
        if not (installed / rel).is_file()
        or (installed / rel).read_bytes() != (source / rel).read_bytes()
    ]
    if stale:
        return (
            f"the ssdlab package at {installed} is not this tree's (differing: {', '.join(stale)}): "
            f"pip install -e '{root}[test]'"
        )
    return None


def run(repro: Reproduction, workdir: Path, jobs: int, root: Path = ROOT) -> Path:
    """Run ``repro``'s command from ``workdir`` (the repository root, or a scratch folder given
    the repository's experiments/) with the console script; returns the folder it wrote."""
    if workdir.resolve() != root.resolve():
        link = workdir / "experiments"
        if not link.exists():
            # Relative paths in the experiments (config files, ../traces/...) resolve through
            # the link to the repository, and are written into the runs as they are spelt.
            link.symlink_to(root / "experiments", target_is_directory=True)
    cmd = [sys.executable, "-m", "ssdlab", "reproduce", repro.name, "--out", repro.out]
    subprocess.run([*cmd, "--jobs", str(jobs)], cwd=workdir, check=True)
    return workdir / repro.out


def rebuild_site(root: Path = ROOT) -> None:
    """Build the committed site anew from the committed reproductions (nothing of an earlier
    build stays), as ``ssdlab report --out docs/site`` run from the root does."""
    from ssdlab.report import build_site

    shutil.rmtree(root / SITE, ignore_errors=True)
    build_site(root / REPRODUCTIONS, root / SITE)


def clear(folder: Path) -> None:
    """Remove what the folder's command writes, so that nothing it no longer writes stays and no
    run is taken from the cache, nor a device from a snapshot (their keys name the version, not
    the engine's source)."""
    for name in generated(folder):
        (folder / name).unlink()
    shutil.rmtree(folder / SNAPSHOTS, ignore_errors=True)
    for sub in ("runs", "plots"):
        if (folder / sub).is_dir() and not any((folder / sub).iterdir()):
            (folder / sub).rmdir()


def differences(committed_dir: Path, fresh_dir: Path) -> list[str]:
    """How the committed folder differs from what its command wrote into ``fresh_dir``."""
    old, new = generated(committed_dir), generated(fresh_dir)
    problems = [f"{n}: committed, but the command no longer writes it" for n in old if n not in new]
    problems += [f"{n}: written by the command, not committed" for n in new if n not in old]
    plot_makers: set[tuple[bytes, bytes]] = set()
    for n in sorted(set(old) & set(new)):
        a, b = (committed_dir / n).read_bytes(), (fresh_dir / n).read_bytes()
        if n.startswith("runs/"):
            a, b = _WALL_TIME.sub(b"", a), _WALL_TIME.sub(b"", b)
        if a == b:
            continue
        problems.append(f"{n}: {_first_difference(a, b)}")
        if n.endswith(".svg"):
            ma, mb = _SVG_MAKER.search(a), _SVG_MAKER.search(b)
            if ma and mb and ma[1] != mb[1]:
                plot_makers.add((ma[1], mb[1]))
    for was, now in sorted(plot_makers):
        problems.append(
            f"(the committed plots were drawn by matplotlib {was.decode()}, these by "
            f"{now.decode()}: the `test` extra of pyproject.toml pins the version they are drawn with)"
        )
    return problems


def listing(problems: list[str], limit: int = 12) -> str:
    """The first ``limit`` problems, and how many more of each kind of file (runs, plots)."""
    rest = problems[limit:]
    kinds = {k: sum(p.startswith(k) for p in rest) for k in ("runs/", "plots/")}
    more = ", ".join(f"{n} in {k}" for k, n in kinds.items() if n)
    return "\n".join(problems[:limit]) + (f"\n... and {len(rest)} more ({more})" if rest else "")


def _first_difference(a: bytes, b: bytes) -> str:
    if a.startswith(b"\x89PNG") or b.startswith(b"\x89PNG"):
        return f"the image differs ({len(a)} bytes committed, {len(b)} written)"
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i} is\n    {x.strip()[:160]}\n  committed, but the command writes\n    {y.strip()[:160]}"
    return f"{len(la)} lines committed, {len(lb)} written"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", metavar="DIR", help="as the README names it")
    parser.add_argument("--check", action="store_true", help="compare instead of regenerating")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = parser.parse_args(argv)
    problems = coverage_problems()
    problem = installed_package_problem()
    if problems or problem:
        print("\n".join(problems + ([problem] if problem else [])), file=sys.stderr)
        return 2
    repros = commands()
    unknown = [f for f in a.folders if f not in {r.out for r in repros}]
    if unknown:
        print(f"not a committed reproduction: {', '.join(unknown)}", file=sys.stderr)
        return 2
    chosen = [r for r in repros if not a.folders or r.out in a.folders]
    stale = 0
    for r in chosen:
        if not a.check:
            clear(ROOT / r.out)
            run(r, ROOT, a.jobs)
            continue
        with tempfile.TemporaryDirectory() as scratch:
            found = differences(ROOT / r.out, run(r, Path(scratch), a.jobs))
        print(f"{r.out}: " + ("as committed" if not found else "STALE\n" + listing(found)))
        stale += bool(found)
    if not a.check:
        from ssdlab.report.scorecard import write_readmes

        # (Before the site: the README pages carry the scorecards.)
        write_readmes(ROOT / REPRODUCTIONS)
        rebuild_site()
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
