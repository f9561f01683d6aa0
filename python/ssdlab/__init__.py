"""ssdlab: a fast, faithful, extensible discrete-event SSD simulator.

The engine is Rust (the private ``ssdlab._core`` extension); this package is its Python face::

    import ssdlab

    r = ssdlab.simulate("default", "traces/msr_hm_0_first1000.csv.gz")
    r.summary["latency_ns"]["read"]["p99"]

    r = ssdlab.simulate("my_device.toml", ["a.csv.gz", ("b.trace", "mqsim")],
                        set={"ftl.gc_threshold": 0.05}, log_requests=True)
    r.requests.groupby("op", observed=True).latency_ns.describe()

The summary's keys are described in ``docs/results.md``. Errors in configs, ``set`` keys and
traces raise :class:`SsdlabError` (a ``ValueError``) whose message names the file, line, field
or key at fault.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from ssdlab import _core
from ssdlab._core import SsdlabError

if TYPE_CHECKING:
    import pandas

__all__ = [
    "Result",
    "SsdlabError",
    "__version__",
    "preset_toml",
    "presets",
    "run_grid",
    "simulate",
    "trace_info",
    "workload_toml",
    "workloads",
]

__version__: str = _core.version()

StrPath = Union[str, "os.PathLike[str]"]
#: A trace format: a name ("msr", "mqsim", ...) or a dict describing the columns of a
#: ``columns`` trace (keys in ``docs/traces.md``, e.g. ``{"time_ms": 1, "offset_bytes": 3,
#: "size_bytes": 4, "op": 5, "read": ["1"], "write": ["0"]}``).
Format = Union[str, Mapping[str, Any]]
TraceSpec = Union[StrPath, tuple[StrPath, Format]]


class Result:
    """What one simulation produced.

    Attributes:
        summary: the JSON summary as a dict (latencies, IOPS, WAF, GC and flash-op counts,
            integrity checks, the resolved config, version and seed; see ``docs/results.md``).
        requests: with ``log_requests=True``, a :class:`pandas.DataFrame` with one row per host
            request, in completion order, and the columns ``flow`` (uint32, index into
            ``summary["flows"]``), ``op`` (a categorical of "read", "write", "trim"),
            ``offset_bytes``, ``size_bytes``, ``arrival_ns``, ``completion_ns`` and
            ``latency_ns`` (int64), then ``stream`` (uint16, the request's stream id, 0 for none)
            when some request of the run has a stream id; 45 bytes a request (47 with
            ``stream``). Otherwise None.
    """

    __slots__ = ("requests", "summary")

    def __init__(self, summary: dict[str, Any], requests: pandas.DataFrame | None = None) -> None:
        self.summary = summary
        self.requests = requests

    def to_json(self, indent: int | None = 2) -> str:
        """The summary as JSON text, as ``ssdlab run --json`` prints it."""
        return json.dumps(self.summary, indent=indent)

    def __repr__(self) -> str:
        count = self.summary.get("requests", {}).get("count")
        mean = self.summary.get("latency_ns", {}).get("all", {}).get("mean")
        parts = [f"{count} requests"]
        if isinstance(mean, (int, float)):
            parts.append(f"mean latency {mean / 1000:.1f} us")
        if self.requests is not None:
            parts.append("request log")
        return f"<ssdlab.Result: {', '.join(parts)}>"


def presets() -> list[str]:
    """Names of the presets shipped with the engine (``ssdlab presets``)."""
    return _core.presets()


def run_grid(
    experiment: StrPath | Mapping[str, Any],
    *,
    out: StrPath | None = None,
    jobs: int | None = None,
    plots: bool = True,
    snapshots: bool = True,
) -> pandas.DataFrame:
    """Run an experiment grid, like ``ssdlab experiment``; one DataFrame row per run.

    Args:
        experiment: the path of an experiment TOML file (see ``docs/experiments.md``), or the
            same content as a dict (relative paths then start at the working directory).
        out: folder for ``runs/*.json``, ``results.csv``, ``report.md`` and the plots; runs whose
            result is already there (same config, workload, seed and version) are not run again.
            None keeps everything in memory.
        jobs: simulations run at once (default: every core). The GIL is released meanwhile.
        plots: draw the plots into ``out/plots`` (only with ``out``).
        snapshots: keep each preconditioned device in ``out/snapshots/`` (only with ``out``), so
            that the runs sharing a device and its preconditioning precondition it once
            (``docs/snapshots.md``); False preconditions every run afresh.

    Returns:
        columns ``config``, ``workload``, ``seed``, one per parameter of the configs (their
        ``params`` and ``sweep``; absent without them), then one per metric, named by its dotted
        path in the run summary (e.g. ``latency_ns.read.mean``).
    """
    import pandas

    out_dir = None if out is None else _path("out", out)
    jobs = _count("jobs", jobs)
    plots = _flag("plots", plots)
    snapshots = _flag("snapshots", snapshots)
    if isinstance(experiment, Mapping):
        try:
            spec_json = json.dumps(experiment)
        except (TypeError, ValueError) as e:
            raise TypeError(f"experiment: {e}") from None
        rows = _core.run_experiment(
            spec_json=spec_json, out=out_dir, jobs=jobs, snapshots=snapshots
        )
    elif _is_path(experiment):
        rows = _core.run_experiment(
            path=os.fsdecode(experiment), out=out_dir, jobs=jobs, snapshots=snapshots
        )
    else:
        raise TypeError(
            f"experiment must be the path of a TOML file or a dict, "
            f"not {type(experiment).__name__}"
        )
    if out_dir is not None and plots:
        from ssdlab.plots import plot_experiment

        plot_experiment(out_dir)
    return pandas.DataFrame(json.loads(rows))


def workloads() -> list[str]:
    """Names of the shipped workloads, generators built from the papers (``ssdlab workloads``)."""
    return _core.workloads()


def workload_toml(name: str) -> str:
    """The TOML text of a named workload; raises :class:`SsdlabError` for an unknown name."""
    return _core.workload_toml(name)


def preset_toml(name: str) -> str:
    """The TOML text of a preset; raises :class:`SsdlabError` for an unknown name."""
    return _core.preset_toml(name)


def simulate(
    config: StrPath = "default",
    trace: TraceSpec | Sequence[TraceSpec] | None = None,
    *,
    workload: str | Sequence[str] | None = None,
    format: Format | None = None,
    blkparse_event: str | None = None,
    preset: str | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    config_file: StrPath | None = None,
    mode: str | None = None,
    queue_depth: int | None = None,
    seed: int | None = None,
    verify: bool = False,
    log_requests: bool = False,
    progress: bool | None = None,
    snapshot: StrPath | None = None,
) -> Result:
    """Replay traces on a simulated SSD, like ``ssdlab run``.

    Args:
        config: a preset name (see :func:`presets`) or the path of a TOML file, which is merged
            over ``preset``. A preset name wins over a file of the same name in the working
            directory; write ``./default`` to mean the file.
        trace: a trace path, a ``(path, format)`` tuple, or a list of them; each becomes one
            flow. None replays only the ``[[flows]]`` of the config.
        workload: a named workload (see :func:`workloads`), or a list of them; each becomes one
            generated flow.
        format: format of the traces given without one: "msr", "spc", "disksim", "mqsim",
            "ssdsim", "flashsim", "blkparse", "fiu", "fio" or "native" (see
            ``docs/traces.md``), or a dict describing the columns of a ``columns`` trace
            (``{"time_ms": 1, "offset_bytes": 3, "size_bytes": 4, "op": 5, "read": ["1"],
            "write": ["0"]}``); None detects each file's format from its first lines. Gzip
            and zstd files are read directly.
        blkparse_event: for blkparse traces, the event that marks a request's arrival: "q"
            (queued), "d" (dispatched) or "c" (completed); None takes the first of Q, D, C the
            file holds, and the summary's config records which.
        preset: the preset a config file is merged over (default "default"); only with a file.
        set: config overrides, as ``{"ftl.gc_threshold": 0.05}`` (Python values: bool, int,
            float, str, list, dict) or as ``["ftl.gc_threshold=0.05"]`` (the text of
            ``--set``, read as TOML, else as a plain string).
        config_file: a TOML file merged over the preset named by ``config``; the same as passing
            the file as ``config`` and the preset as ``preset``.
        mode: replay mode of every flow, the given traces and workloads and the config's
            ``[[flows]]`` alike, over their own: "open" (at trace timestamps) or "closed" (keep
            ``queue_depth`` requests outstanding); None: each flow's own, else the config's
            ``host.mode``.
        queue_depth: queue depth of every flow in closed mode, over their own, at least 1
            (refused for a flow that replays open, or whose workload keeps its own depth); None:
            each flow's own, else ``host.queue_depth``.
        seed: random seed, overriding the config's.
        verify: check every read and the final mapping against an integrity oracle; the result
            is ``summary["integrity"]``.
        log_requests: also return one row per request as ``Result.requests``, built from the
            engine's columns without a copy through text (see ``docs/results.md``, "Request
            log", for the memory a request takes).
        progress: show a progress bar with an estimated time left on stderr while the run
            lasts (preconditioning, then the replay), after its first second, as ``ssdlab
            run`` does; None shows it when ``sys.stderr`` is a terminal. It is drawn on the
            process's stderr (file descriptor 2), never where that is not a terminal; pass False
            when running several simulations at once in threads, whose bars would overwrite one
            another.
        snapshot: a folder of device snapshots, or one snapshot file, as ``ssdlab run
            --snapshot`` takes (``docs/snapshots.md``): the preconditioned device is loaded from
            it, or preconditioned and saved into the folder; the results are those of
            preconditioning afresh.

    Raises:
        SsdlabError: unknown preset, bad TOML or ``set`` key, unreadable or malformed trace, a
            device the data does not fit; the message names the file, line, field or key.
        TypeError, ValueError: an argument of the wrong type or out of range (a ``set`` key
            holding ``=``, a ``queue_depth`` below 1); the message names the argument.

    The simulation runs with the GIL released, so other Python threads keep running and several
    simulations can run in parallel threads.
    """
    preset_name, path = _config_source(config, preset, config_file)
    sets = _overrides(set)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        sets.append(f"seed={int(seed)}")
    summary_json, columns = _core.simulate(
        preset_name,
        path,
        sets,
        _traces(trace, format, blkparse_event),
        _workloads(workload),
        _optional_str("mode", mode),
        _count("queue_depth", queue_depth),
        _flag("verify", verify),
        _flag("log_requests", log_requests),
        _stderr_is_terminal() if progress is None else _flag("progress", progress),
        None if snapshot is None else _path("snapshot", snapshot),
    )
    requests = None if columns is None else _request_frame(columns)
    return Result(json.loads(summary_json), requests)


def _request_frame(
    columns: list[tuple[str, str, bytearray, tuple[str, ...] | None]],
) -> pandas.DataFrame:
    """The request log as a DataFrame over the engine's column buffers: numpy wraps each
    ``bytearray`` as it is (writable, no copy), ``op``'s codes become a categorical."""
    import numpy
    import pandas

    data: dict[str, Any] = {}
    for name, dtype, values, categories in columns:
        array = numpy.frombuffer(values, dtype)
        if categories is not None:
            array = pandas.Categorical.from_codes(array, categories=list(categories))
        data[name] = array
    # copy=False: one block per column, as built; the default would copy the int64 columns
    # into one block, doubling the peak memory of a long log.
    return pandas.DataFrame(data, copy=False)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without it, or closed
        return False


def trace_info(
    path: StrPath, format: Format | None = None, blkparse_event: str | None = None
) -> dict[str, Any]:
    """Statistics of one trace file, as ``ssdlab trace-info --json`` prints them.

    Keys include ``requests``, ``read_ratio``, ``read_bytes_mean``, ``write_bytes_mean``,
    ``address_span_bytes``, ``time_span_ns``, ``size_histogram``, ``inter_arrival_ns`` and
    ``reaccess`` (see ``docs/traces.md``). ``format`` None detects the format, and may be a
    dict describing a ``columns`` trace, as in :func:`simulate`; ``blkparse_event`` as there.
    No device capacity is involved.
    """
    name, columns = _format(format)
    event = _optional_str("blkparse_event", blkparse_event)
    return json.loads(_core.trace_info(_path("path", path), name, columns, event))


def _config_source(
    config: StrPath, preset: str | None, config_file: StrPath | None
) -> tuple[str, str | None]:
    """Split ``config`` into (preset name, config file or None)."""
    preset = _optional_str("preset", preset)
    config_path = None if config_file is None else _path("config_file", config_file)
    if isinstance(config, os.PathLike) or (
        isinstance(config, str) and config not in _core.presets() and _looks_like_path(config)
    ):
        if config_path is not None:
            raise TypeError("give the config file as `config` or as `config_file`, not both")
        return ("default" if preset is None else preset), os.fsdecode(config)
    if not isinstance(config, str):
        raise TypeError(f"config must be a preset name or a path, not {type(config).__name__}")
    if preset is not None and preset != config:
        raise TypeError(
            f"`preset={preset!r}` applies only when `config` is a file; "
            f"`config={config!r}` already names the preset"
        )
    return config, config_path


def _looks_like_path(s: str) -> bool:
    return s.endswith(".toml") or "/" in s or os.sep in s or os.path.isfile(s)


def _format(format: Format | None) -> tuple[str | None, str | None]:
    """``format=`` as (format name, JSON text of a columns description), one of them None."""
    if format is None or isinstance(format, str):
        return format, None
    if isinstance(format, Mapping):
        return None, json.dumps(dict(format))
    raise TypeError(
        f"format must be a str, a dict describing the columns, or None, "
        f"not {type(format).__name__}"
    )


def _path(name: str, value: Any) -> str:
    """``value`` as a path string; a TypeError naming the argument ``name`` if it is none, a
    ValueError if it is empty (which names no file: the working directory at best)."""
    if _is_path(value):
        path = os.fsdecode(value)
        if path == "":
            raise ValueError(f"{name} is an empty path: give a file or folder")
        return path
    raise TypeError(f"{name} must be a path (str or os.PathLike), not {type(value).__name__}")


def _optional_str(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    return value


def _flag(name: str, value: Any) -> bool:
    """``value`` if it is a bool: ``bool("no")`` is True, so anything else is refused."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r}")
    return value


#: The largest count the engine takes (a u32, as the config's `host.queue_depth`).
_MAX_COUNT = 2**32 - 1


def _count(name: str, value: Any) -> int | None:
    """``value``, a positive int (or None), checked before the engine converts it to an
    unsigned integer, which would say OverflowError without naming the argument."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int or None, not {type(value).__name__}")
    if not 1 <= value <= _MAX_COUNT:
        raise ValueError(f"{name} must be between 1 and {_MAX_COUNT}, not {value}")
    return int(value)


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, bytes, os.PathLike))


def _is_trace_pair(value: Any) -> bool:
    """Whether ``value`` is a ``(path, format)`` tuple: a path, then a format name or a dict."""
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and _is_path(value[0])
        and isinstance(value[1], (str, Mapping))
    )


def _traces(
    trace: TraceSpec | Sequence[TraceSpec] | None,
    format: Format | None,
    blkparse_event: str | None,
) -> list[tuple[str, str | None, str | None, str | None]]:
    """Normalise ``trace`` into (path, format name, columns JSON, blkparse event) tuples."""
    event = _optional_str("blkparse_event", blkparse_event)
    if trace is None:
        return []
    if _is_path(trace):
        return [(os.fsdecode(trace), *_format(format), event)]
    if _is_trace_pair(trace):
        # One trace with its format, as in a list (two traces go in a list).
        return [(os.fsdecode(trace[0]), *_format(trace[1]), event)]
    if not isinstance(trace, Iterable) or isinstance(trace, Mapping):
        raise TypeError(
            f"trace must be a path, a (path, format) tuple or a list of them, "
            f"not {type(trace).__name__}"
        )
    out: list[tuple[str, str | None, str | None, str | None]] = []
    for item in trace:
        if _is_path(item):
            out.append((os.fsdecode(item), *_format(format), event))
        elif _is_trace_pair(item):
            out.append((os.fsdecode(item[0]), *_format(item[1]), event))
        else:
            raise TypeError(f"a trace must be a path or a (path, format) tuple, not {item!r}")
    return out


def _workloads(workload: str | Sequence[str] | None) -> list[str]:
    if workload is None:
        return []
    if isinstance(workload, str):
        return [workload]
    if isinstance(workload, Iterable) and not isinstance(workload, (bytes, Mapping)):
        names = list(workload)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"workload names must be str, not {name!r}")
        return names
    raise TypeError(
        f"workload must be a workload name or a list of them, not {type(workload).__name__}"
    )


def _overrides(set_: Mapping[str, Any] | Iterable[str] | None) -> list[str]:
    """``set=`` as the ``key=value`` strings of the CLI's ``--set``."""
    if set_ is None:
        return []
    if isinstance(set_, str):
        return [set_]
    if isinstance(set_, Mapping):
        out = []
        for key, value in set_.items():
            if not isinstance(key, str):
                raise TypeError(f"set: config keys must be str, not {key!r}")
            if "=" in key:
                # `key=value` is split at its first `=`: the part before would be set instead.
                raise ValueError(
                    f"set: config key {key!r} contains `=`; give the key alone, "
                    f"as {{{key.split('=', 1)[0]!r}: value}}"
                )
            try:
                out.append(f"{key}={_toml_value(value)}")
            except TypeError as e:
                raise TypeError(f"set: `{key}`: {e}") from None
        return out
    if not isinstance(set_, Iterable) or isinstance(set_, bytes):
        raise TypeError(
            f"set must be a dict of config keys to values or a list of 'key=value' strings, "
            f"not {type(set_).__name__}"
        )
    out = []
    for item in set_:
        if not isinstance(item, str):
            raise TypeError(f"set: overrides must be 'key=value' strings, not {item!r}")
        out.append(item)
    return out


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_value(value: Any) -> str:
    """A Python value as a TOML literal (the right-hand side of ``key = ...``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    if isinstance(value, (str, os.PathLike)):
        return _toml_string(os.fsdecode(value))
    if isinstance(value, Mapping):
        items = (f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(items) + " }" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot express {type(value).__name__} {value!r} as a config value")


def _toml_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"config keys must be str, not {key!r}")
    return key if _BARE_KEY.match(key) else _toml_string(key)
