"""The ``ssdlab`` console script: the engine's own command line (run, presets, bench, …), plus
the plots of ``experiment`` and ``reproduce``, which matplotlib draws once the engine is done,
and ``report``, the site of the reproductions, which is Python's alone (:mod:`ssdlab.report`)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from ssdlab import _core
from ssdlab.ray_backend import connect as ray_connect


def main(argv: list[str] | None = None) -> None:
    """Run the Rust CLI with ``argv`` (default ``sys.argv``; ``argv[0]`` is the program name) and
    exit with its status: 0 success, 1 simulation failed, 2 bad input, 3 integrity violations."""
    args = list(sys.argv if argv is None else argv)
    if not args:
        args = ["ssdlab"]
    args[0] = os.path.basename(args[0]) or "ssdlab"
    if args[1:2] == ["report"]:
        # The engine's command line only lists it (in `--help`): plotly builds the site.
        from ssdlab.report import main as report

        sys.exit(report(args[2:], prog=f"{args[0]} report"))
    # The engine holds the process until it returns; let Ctrl-C end it as it ends the native
    # binary, instead of waiting for Python to see the signal afterwards.
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread: leave signal handling alone
        pass
    # Rust writes to the file descriptors directly; emit anything Python buffered first.
    sys.stdout.flush()
    sys.stderr.flush()
    os.environ["SSDLAB_PLOTS"] = "python"
    # `--backend ray` of experiment and reproduce runs on Ray through this package.
    code = _core.cli_main(args, ray_connect)
    out = _experiment_out(args[1:]) if code == 0 else None
    if out is not None and (out / "experiment.json").is_file():
        from ssdlab.plots import plot_experiment

        plot_experiment(out)
    sys.exit(code)


def _experiment_out(args: list[str]) -> Path | None:
    """The output folder of an ``experiment`` or ``reproduce`` command line, else None."""
    if not args or args[0] not in ("experiment", "reproduce") or "--help" in args or "-h" in args:
        return None
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("target")
    parser.add_argument("--out")
    known, _ = parser.parse_known_args(args[1:])
    if known.out is not None:
        return Path(known.out)
    return Path("reproductions") / known.target if args[0] == "reproduce" else None


if __name__ == "__main__":
    main()
