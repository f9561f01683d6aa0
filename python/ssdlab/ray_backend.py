"""The Ray backend of experiment grids (``ssdlab experiment FILE --backend ray``): one Ray task per
run. The engine's grid runner decides which runs are needed (the result cache), writes each run's
file as it ends, feeds the progress bar and reports failures; this module only ships the runs to
Ray and hands back their summaries as the tasks complete. It needs the ``ray`` extra
(``pip install 'ssdlab[ray]'``); see docs/experiments.md, "Running on a Ray cluster"."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ssdlab import _core

# Attempts after the first, for a task that raised or whose worker died. A simulation is
# deterministic, but what fails it on a worker may not be: a node without the trace file (the
# retry may land on another), a worker killed for memory.
MAX_RETRIES = 2


def connect(address: str | None) -> RayExecutor:
    """The executor of ``--backend ray``, connected to Ray: the instance this process already
    started (``ray.init``) if any, else ``address`` (``auto``, ``ray://HOST:10001``), else a new
    local instance. ``RAY_RUNTIME_ENV`` (JSON, as Ray Client reads it) is the runtime environment
    of the tasks, whatever the address. Raises RuntimeError, whose message the command line
    prints, if Ray is not installed."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "Ray is not installed in this Python environment: pip install 'ssdlab[ray]'"
        ) from None
    if not ray.is_initialized():
        env = os.environ.get("RAY_RUNTIME_ENV")
        ray.init(address=address, runtime_env=json.loads(env) if env else None)
    return RayExecutor()


class RayExecutor:
    """Runs a grid's runs as Ray tasks (one CPU each); what the engine calls for ``--backend
    ray``."""

    def run(
        self, tasks: Sequence[tuple[int, str]]
    ) -> Iterator[tuple[int, str | None, str | None, int | None]]:
        """Submit every ``(index, task_toml)`` and yield ``(index, summary_json, None, None)``
        or ``(index, None, error, exit_code)`` as each task completes (after its retries), in
        completion order."""
        import ray

        simulate = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=True)(_simulate)
        pending = {simulate.remote(task): index for index, task in tasks}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                index = pending.pop(ref)
                try:
                    yield index, ray.get(ref), None, None
                except ray.exceptions.RayError as e:
                    yield index, None, _reason(e), _exit_code(e)


def _simulate(task_toml: str) -> str:
    """A Ray task: one run, in a worker (where ssdlab is installed)."""
    return _core.run_task(task_toml)


def _exit_code(error: Any) -> int:
    """The exit code the engine gives the error that failed the task (``run_task`` sets it), as
    the local backend would exit; 1 for a worker lost."""
    return getattr(getattr(error, "cause", None), "exit_code", 1)


def _reason(error: Any) -> str:
    """Why a task failed, in the words of what raised (the engine's error, not Ray's traceback of
    it), after the attempts Ray made."""
    cause = getattr(error, "cause", None)
    attempts = MAX_RETRIES + 1
    return f"{cause if cause is not None else error} (after {attempts} attempts)"
