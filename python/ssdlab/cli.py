"""The ``ssdlab`` console script: the engine's own command line (run, presets, bench)."""

from __future__ import annotations

import os
import signal
import sys

from ssdlab import _core


def main(argv: list[str] | None = None) -> None:
    """Run the Rust CLI with ``argv`` (default ``sys.argv``; ``argv[0]`` is the program name) and
    exit with its status: 0 success, 1 simulation failed, 2 bad input, 3 integrity violations."""
    args = list(sys.argv if argv is None else argv)
    if not args:
        args = ["ssdlab"]
    args[0] = os.path.basename(args[0]) or "ssdlab"
    # The engine holds the process until it returns; let Ctrl-C end it as it ends the native
    # binary, instead of waiting for Python to see the signal afterwards.
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread: leave signal handling alone
        pass
    # Rust writes to the file descriptors directly; emit anything Python buffered first.
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_core.cli_main(args))


if __name__ == "__main__":
    main()
