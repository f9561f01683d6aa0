"""The private Rust extension behind :mod:`ssdlab`; use the functions of ``ssdlab`` instead."""

import os
from collections.abc import Callable, Sequence
from typing import Any

from typing_extensions import TypeAlias

__all__ = [
    "SsdlabError",
    "cli_main",
    "run_task",
    "preset_toml",
    "presets",
    "simulate",
    "trace_info",
    "version",
]

_StrPath: TypeAlias = str | os.PathLike[str]

class SsdlabError(ValueError):
    """A config, trace or simulation error; the message names the file, line, field or key."""

def simulate(
    preset: str,
    config_path: _StrPath | None,
    sets: Sequence[str],
    traces: Sequence[tuple[_StrPath, str | None, str | None, str | None]],
    workloads: Sequence[str],
    mode: str | None = None,
    queue_depth: int | None = None,
    verify: bool = False,
    log_requests: bool = False,
    progress: bool = False,
    snapshot: _StrPath | None = None,
) -> tuple[str, list[tuple[str, str, bytearray, tuple[str, ...] | None]] | None]:
    """Run one simulation with the GIL released; with ``progress``, a progress bar shows on
    stderr meanwhile if it is a terminal; with ``snapshot``, the preconditioned device is loaded
    from there, or saved there (a folder of snapshots, or one snapshot file).

    Each trace is (path, format name, JSON text of a columns description, blkparse event).

    Returns the summary as JSON text and, with ``log_requests``, the request log as a list of
    ``(column, numpy dtype, values, categories)``: the columns flow ("<u4"), op ("u1" codes
    into ``categories``, the op names), offset_bytes, size_bytes, arrival_ns, completion_ns,
    latency_ns ("<i8"), and stream ("<u2") when some request has a stream id; the values are
    little-endian in a bytearray (``numpy.frombuffer``), categories None but for op.
    """

def trace_info(
    path: _StrPath,
    format: str | None = None,
    columns_json: str | None = None,
    blkparse_event: str | None = None,
) -> str:
    """Statistics of one trace file as JSON text (``ssdlab trace-info --json``)."""

def presets() -> list[str]: ...
def preset_toml(name: str) -> str: ...
def version() -> str: ...
def cli_main(argv: Sequence[str], ray: Callable[[str | None], Any] | None = None) -> int:
    """Run the ``ssdlab`` command line; ``argv[0]`` is the program name. Returns the exit code.
    ``ray(address)`` gives the executor of ``--backend ray`` (``ssdlab.ray_backend.connect``)."""

def run_task(task_toml: str) -> str:
    """Simulate one run of a grid sent by its Ray backend; its summary as JSON text. A failure
    raises SsdlabError with ``exit_code``, the command line's exit code for the error."""

def workloads() -> list[str]:
    """Names of the named workloads compiled into the engine."""

def workload_toml(name: str) -> str:
    """The TOML text of a named workload; raises SsdlabError for an unknown name."""

def run_experiment(
    path: str | None = None,
    spec_json: str | None = None,
    out: str | None = None,
    jobs: int | None = None,
    snapshots: bool = True,
) -> str:
    """Run an experiment grid (a TOML file, or JSON text); the rows as JSON text. With ``out``
    and ``snapshots``, the preconditioned devices are kept in ``out/snapshots/``."""

def paper_comparison(out: _StrPath) -> str:
    """The paper's figures of the experiment whose outputs are in ``out`` next to ours, as JSON
    text (one object per figure: metric, config, workload, paper, ours, score, kind, source,
    line, reason, unmeasured)."""

def scorecard(folders: list[tuple[str, _StrPath]]) -> str:
    """The scorecard of a paper's experiments (each folder with its label), as JSON text:
    ``tally``, ``sentence`` and ``markdown`` (as the paper's README carries it)."""
