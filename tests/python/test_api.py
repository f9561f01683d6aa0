"""Tests of the Python package: `ssdlab.simulate` and friends, the `_core` bindings under them, and
the `ssdlab` console script. They run the installed package (`pip install .`) on the traces
committed under traces/ and the small test device of the engine's own tests."""

from __future__ import annotations

import ast
import gzip
import inspect
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import ssdlab
from ssdlab import SsdlabError, _core

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "crates" / "ssdlab" / "tests" / "data" / "small.toml"
MSR = ROOT / "traces" / "msr_hm_0_first1000.csv.gz"
MQSIM = ROOT / "traces" / "tpcc_small_mqsim.trace.gz"
# The small device (192 MiB raw) is far smaller than the traced disks: fold addresses into it.
WRAP = {"host.out_of_range": "wrap"}
COLUMNS = ["flow", "op", "offset_bytes", "size_bytes", "arrival_ns", "completion_ns", "latency_ns"]
# Two writes and a read with the stream ids 3, none and 65535, in the native format.
STREAMS_TRACE = (
    "arrival_ns,offset_bytes,size_bytes,op,stream\n"
    "0,0,4096,write,3\n1000000,8192,4096,write,\n2000000,0,4096,read,65535\n"
)


def trace_lines(path: Path) -> int:
    """Requests in a committed trace: one per non-blank line (neither format has a header)."""
    with gzip.open(path, "rt") as f:
        return sum(1 for line in f if line.strip())


def without_wall_time(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_time_s"}


def run_small(trace=MSR, **kw) -> ssdlab.Result:
    kw.setdefault("set", WRAP)
    return ssdlab.simulate(SMALL, trace, **kw)


# --- results -------------------------------------------------------------------------------------


@pytest.mark.parametrize("trace, fmt", [(MSR, "msr"), (MQSIM, "mqsim")])
def test_summary_of_a_verified_run(trace, fmt):
    r = run_small(trace, format=fmt, verify=True)
    s = r.summary
    n = trace_lines(trace)
    assert s["requests"]["count"] == n
    assert s["requests"]["read"] + s["requests"]["write"] + s["requests"]["trim"] == n
    assert s["latency_ns"]["read"]["mean"] > 0
    assert s["latency_ns"]["all"]["count"] == n
    assert s["integrity"]["enabled"] is True
    assert s["integrity"]["checked_reads"] > 0
    assert s["integrity"]["violations"] == 0
    assert s["version"] == ssdlab.__version__
    assert s["config"]["name"] == "small"
    assert s["config"]["host"]["out_of_range"] == "wrap"
    assert [f["trace"] for f in s["config"]["flows"]] == [str(trace)]
    assert [f["format"] for f in s["config"]["flows"]] == [fmt]
    assert r.requests is None
    assert json.loads(r.to_json()) == s


def test_without_verify_the_oracle_is_off():
    s = run_small().summary
    assert s["integrity"]["enabled"] is False


def test_request_log_dataframe():
    r = run_small(log_requests=True)
    df = r.requests
    assert list(df.columns) == COLUMNS
    assert len(df) == r.summary["requests"]["count"] == trace_lines(MSR)
    assert set(df["op"]) <= {"read", "write", "trim"}
    assert (df["op"] == "read").sum() == r.summary["requests"]["read"]
    assert (df["op"] == "write").sum() == r.summary["requests"]["write"]
    assert (df["flow"] == 0).all()
    assert (df["latency_ns"] == df["completion_ns"] - df["arrival_ns"]).all()
    assert (df["size_bytes"] > 0).all()
    assert df["op"].dtype == "category"
    assert list(df["op"].cat.categories) == ["read", "write", "trim"]
    assert df["flow"].dtype == "uint32"
    assert all(df[col].dtype == "int64" for col in COLUMNS[2:])
    assert df["latency_ns"].max() == r.summary["latency_ns"]["all"]["max"]
    # Built over the engine's buffers, yet a DataFrame like any other: its values can be changed.
    df.loc[0, "size_bytes"] = 1
    assert df["size_bytes"].iloc[0] == 1


def test_two_traces_are_two_flows():
    r = run_small([MSR, (MQSIM, "mqsim")], log_requests=True)
    s = r.summary
    assert s["requests"]["count"] == trace_lines(MSR) + trace_lines(MQSIM)
    assert [f["name"] for f in s["flows"]] == [MSR.name, MQSIM.name]
    assert [f["requests"]["count"] for f in s["flows"]] == [trace_lines(MSR), trace_lines(MQSIM)]
    assert r.requests["flow"].value_counts().sort_index().tolist() == [
        trace_lines(MSR),
        trace_lines(MQSIM),
    ]


def test_identical_runs_give_identical_results():
    a = run_small(MQSIM, format="mqsim", verify=True, log_requests=True)
    b = run_small(MQSIM, format="mqsim", verify=True, log_requests=True)
    assert "wall_time_s" in a.summary
    assert without_wall_time(a.summary) == without_wall_time(b.summary)
    assert a.requests.equals(b.requests)


def test_config_file_given_three_ways_is_the_same_config():
    by_path = run_small(MSR)
    by_pathlib = ssdlab.simulate(Path(SMALL), str(MSR), set=WRAP, preset="default")
    by_keyword = ssdlab.simulate("default", MSR, config_file=SMALL, set=WRAP)
    expected = without_wall_time(by_path.summary)
    assert without_wall_time(by_pathlib.summary) == expected
    assert without_wall_time(by_keyword.summary) == expected


def test_default_preset_by_name():
    assert "default" in ssdlab.presets()
    s = ssdlab.simulate("default", MSR).summary
    assert s["requests"]["count"] == trace_lines(MSR)
    assert s["config"]["name"] == ssdlab.simulate(trace=MSR).summary["config"]["name"]


def test_overrides_as_dict_or_list_and_seed():
    text = 'a "quoted" \\ back\tslash, ünïcode'
    by_dict = run_small(
        set={
            **WRAP,
            "description": text,
            "ftl.gc_threshold": 0.15,
            "ftl.gc_victim": {"policy": "greedy"},
        },
        seed=42,
    ).summary
    assert by_dict["config"]["description"] == text
    assert by_dict["config"]["ftl"]["gc_threshold"] == 0.15
    assert by_dict["seed"] == by_dict["config"]["seed"] == 42
    by_list = run_small(
        set=[
            "host.out_of_range=wrap",
            "ftl.gc_threshold=0.15",
            "ftl.gc_victim.policy=greedy",
            "seed=42",
        ]
    ).summary
    assert by_list["config"]["ftl"] == by_dict["config"]["ftl"]
    assert by_list["seed"] == 42


def test_statistics_window_measures_the_second_half():
    n = trace_lines(MSR)
    half = run_small(set={**WRAP, "statistics.warmup_fraction": 0.5}, log_requests=True)
    s = half.summary
    assert s["requests"]["count"] == n - n // 2
    assert s["statistics"]["warmup_requests"] == n // 2
    assert s["config"]["statistics"]["warmup_fraction"] == 0.5
    # The log keeps every request; the measured ones arrived from the boundary on.
    assert len(half.requests) == n
    measured = half.requests[half.requests["arrival_ns"] >= s["statistics"]["measured_from_ns"]]
    assert len(measured) == s["requests"]["count"]
    assert "statistics" not in run_small().summary
    with pytest.raises(SsdlabError, match=r"config key `statistics.warmup_requests`: warms up on"):
        run_small(set={**WRAP, "statistics.warmup_requests": n})


def test_closed_loop_mode_and_queue_depth():
    s = run_small(mode="closed", queue_depth=4).summary
    assert s["requests"]["count"] == trace_lines(MSR)
    assert [(f["mode"], f["queue_depth"]) for f in s["config"]["flows"]] == [("closed", 4)]


def test_mode_and_queue_depth_apply_to_the_configs_flows():
    # As `ssdlab run --mode --queue-depth` does: every flow, the config's too.
    flows = {**WRAP, "flows": [{"trace": str(MSR)}]}
    s = ssdlab.simulate(SMALL, set=flows, mode="closed", queue_depth=4).summary
    assert [(f["mode"], f["queue_depth"]) for f in s["config"]["flows"]] == [("closed", 4)]


def test_result_repr():
    r = run_small()
    assert repr(r).startswith(f"<ssdlab.Result: {trace_lines(MSR)} requests")


def test_presets_and_preset_toml():
    names = ssdlab.presets()
    assert names == _core.presets()
    assert "default" in names
    text = ssdlab.preset_toml("default")
    assert "[geometry]" in text
    with pytest.raises(SsdlabError, match="unknown preset `nope`"):
        ssdlab.preset_toml("nope")


# --- errors ------------------------------------------------------------------------------------


def test_a_panic_in_the_engine_is_an_ssdlab_error():
    """Whatever the engine does, no `PanicException` (a BaseException) reaches Python: a panic
    comes back as SsdlabError with its message and where in the engine it was."""
    with pytest.raises(SsdlabError, match=r"^internal error .*: boom at crates/ssdlab-py/src/lib.rs:\d+"):
        _core._panic_in_engine("boom")
    try:
        _core._panic_in_engine("caught")
    except Exception as e:  # noqa: BLE001 - the point: `except Exception` catches it
        assert "caught" in str(e)


def test_error_class():
    assert issubclass(SsdlabError, ValueError)
    assert SsdlabError is _core.SsdlabError
    assert SsdlabError.__module__ == "ssdlab"


def test_unknown_preset():
    with pytest.raises(SsdlabError, match=r"unknown preset `no-such-preset` \(known: .*default"):
        ssdlab.simulate("no-such-preset", MSR)


def test_bad_set_key_names_the_key():
    with pytest.raises(SsdlabError) as e:
        run_small(set={**WRAP, "ftl.no_such_key": 1})
    assert "no_such_key" in str(e.value)
    assert str(SMALL) in str(e.value)
    with pytest.raises(SsdlabError, match="override `nokv`: expected key=value") as e:
        run_small(set=["nokv"])
    assert "--set" not in str(e.value)


def test_malformed_trace_names_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "128166385295514663,hm,0,Write,4096,2048,2833\n"
        "128166385295514878,hm,0,Frobnicate,8192,512,2617\n"
    )
    with pytest.raises(SsdlabError) as e:
        run_small(bad)
    msg = str(e.value)
    assert msg.startswith(f"{bad}:2:"), msg
    assert "Type" in msg and "Frobnicate" in msg


def test_missing_trace_names_the_file(tmp_path):
    missing = tmp_path / "missing.csv"
    with pytest.raises(SsdlabError, match="missing.csv: cannot read trace"):
        run_small(missing)


def test_address_past_capacity_without_wrap():
    with pytest.raises(SsdlabError, match=r"msr_hm_0_first1000\.csv\.gz:1: field `Offset`"):
        ssdlab.simulate(SMALL, MSR)


@pytest.mark.parametrize(
    "kw, pattern",
    [
        ({"format": "blktrace"}, "unknown trace format `blktrace`"),
        ({"mode": "sideways"}, "unknown replay mode `sideways`"),
    ],
)
def test_bad_format_or_mode(kw, pattern):
    with pytest.raises(SsdlabError, match=pattern):
        run_small(**kw)


def test_no_trace_at_all():
    with pytest.raises(SsdlabError, match="nothing to replay"):
        ssdlab.simulate(SMALL, set=WRAP)


def test_argument_type_errors():
    with pytest.raises(TypeError, match="not both"):
        ssdlab.simulate(SMALL, MSR, config_file=SMALL)
    with pytest.raises(TypeError, match="applies only when `config` is a file"):
        ssdlab.simulate("default", MSR, preset="pr-ssd")
    with pytest.raises(TypeError, match="a trace must be"):
        ssdlab.simulate(SMALL, [MSR, 3])
    with pytest.raises(TypeError, match="cannot express"):
        run_small(set={"seed": object()})
    with pytest.raises(TypeError):
        run_small(seed="7")


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        # Not iterable: each was "'int' object is not iterable", naming no argument.
        (lambda: ssdlab.simulate("default", 42), TypeError, r"^trace must be .* not int"),
        (lambda: run_small(set=5), TypeError, r"^set must be a dict .* not int"),
        (lambda: run_small(workload=5), TypeError, r"^workload must be .* not int"),
        (lambda: run_small(workload=["spread-kv", 5]), TypeError, r"^workload names must be str"),
        # Out of an unsigned range: was OverflowError.
        (lambda: run_small(queue_depth=-1), ValueError, r"^queue_depth must be between 1 and"),
        (lambda: run_small(queue_depth=0), ValueError, r"^queue_depth must be between 1 and"),
        (lambda: run_small(queue_depth=2**32), ValueError, r"^queue_depth must be between 1 and"),
        (lambda: run_small(queue_depth=2.5), TypeError, r"^queue_depth must be an int"),
        (lambda: run_small(queue_depth=True), TypeError, r"^queue_depth must be an int"),
        # A key holding `=` set the part before it.
        (
            lambda: run_small(set={**WRAP, "ftl.gc_threshold=0.5": 0.1}),
            ValueError,
            r"^set: config key 'ftl.gc_threshold=0.5' contains `=`",
        ),
        (lambda: run_small(set={**WRAP, "seed": None}), TypeError, r"^set: `seed`: cannot express"),
        (lambda: run_small(set=[b"seed=1"]), TypeError, r"^set: overrides must be 'key=value'"),
        # bool("no") is True: flags take True or False only.
        (lambda: run_small(verify="no"), TypeError, r"^verify must be True or False"),
        (lambda: run_small(log_requests=1), TypeError, r"^log_requests must be True or False"),
        (lambda: run_small(progress="no"), TypeError, r"^progress must be True or False"),
        # Arguments fed to the engine's converters, which named no argument or the wrong one.
        (lambda: run_small(mode=1), TypeError, r"^mode must be a str or None"),
        (lambda: run_small(blkparse_event=1), TypeError, r"^blkparse_event must be a str"),
        (lambda: ssdlab.simulate(SMALL, MSR, preset=1), TypeError, r"^preset must be a str"),
        (lambda: ssdlab.simulate("default", MSR, config_file=1), TypeError, r"^config_file must"),
        (lambda: ssdlab.trace_info(5), TypeError, r"^path must be a path"),
        (lambda: ssdlab.trace_info(MSR, blkparse_event=1), TypeError, r"^blkparse_event must"),
        (lambda: ssdlab.run_grid(5), TypeError, r"^experiment must be the path"),
        (lambda: ssdlab.run_grid({"x": object()}), TypeError, r"^experiment: "),
        (lambda: ssdlab.run_grid({}, out=5), TypeError, r"^out must be a path"),
        # An empty path names no file: the working directory at best.
        (lambda: run_small(set=WRAP, snapshot=""), ValueError, r"^snapshot is an empty path"),
        (lambda: ssdlab.run_grid({}, out=""), ValueError, r"^out is an empty path"),
        (lambda: ssdlab.run_grid({}, jobs=-1), ValueError, r"^jobs must be between 1 and"),
        (lambda: ssdlab.run_grid({}, plots="no"), TypeError, r"^plots must be True or False"),
    ],
)
def test_bad_arguments_name_the_argument(call, error, pattern):
    with pytest.raises(error, match=pattern) as e:
        call()
    assert not isinstance(e.value, (OverflowError, SsdlabError)), repr(e.value)


def test_one_trace_with_its_format_is_a_tuple():
    # A bare (path, format) tuple is one trace, as it is inside a list; it was read as two paths.
    alone = run_small((MQSIM, "mqsim")).summary
    listed = run_small([(MQSIM, "mqsim")]).summary
    assert without_wall_time(alone) == without_wall_time(listed)
    assert alone["requests"]["count"] == trace_lines(MQSIM)


# --- the GIL -----------------------------------------------------------------------------------

GIL_CHILD = textwrap.dedent(
    """
    import gzip, sys, threading
    import ssdlab

    fifo, small, msr = sys.argv[1:]
    with gzip.open(msr, "rt") as f:
        text = f.read()

    def feed():
        # open() blocks until the engine opens the FIFO to read it, so this write can only
        # happen while `simulate` is running: it needs this thread to get the GIL meanwhile.
        with open(fifo, "w") as f:
            f.write(text)

    threading.Thread(target=feed, daemon=True).start()
    r = ssdlab.simulate(small, fifo, set={"host.out_of_range": "wrap"})
    print(r.summary["requests"]["count"])
    """
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
def test_simulate_releases_the_gil(tmp_path):
    """The engine reads its trace from a named pipe that a Python thread fills. If `simulate` held
    the GIL, that thread could never write and the run would hang (caught by the timeout), so the
    outcome does not depend on timing."""
    fifo = tmp_path / "trace.csv"
    os.mkfifo(fifo)
    try:
        out = subprocess.run(
            [sys.executable, "-c", GIL_CHILD, str(fifo), str(SMALL), str(MSR)],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("simulate() did not let another Python thread run (GIL held?)")
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == trace_lines(MSR)


def test_parallel_simulations_agree_with_a_serial_one():
    serial = without_wall_time(run_small(MQSIM, format="mqsim").summary)
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = [pool.submit(run_small, MQSIM, format="mqsim") for _ in range(3)]
        results = [without_wall_time(f.result().summary) for f in futures]
    assert all(r == serial for r in results)


# --- the type stub -------------------------------------------------------------------------------


def test_stub_matches_the_extension():
    stub = Path(ssdlab.__file__).with_name("_core.pyi")
    assert stub.with_name("py.typed").exists()
    tree = ast.parse(stub.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    runtime = {
        name
        for name, obj in vars(_core).items()
        if not name.startswith("_") and (callable(obj) or isinstance(obj, type))
    }
    assert runtime == set(functions) | classes
    for name, node in functions.items():
        stub_params = [a.arg for a in node.args.args]
        assert list(inspect.signature(getattr(_core, name)).parameters) == stub_params, name


# --- set= values as TOML -------------------------------------------------------------------------


def test_python_values_become_toml_literals():
    tomllib = pytest.importorskip("tomllib")
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    scalars = (
        st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**63 - 1)
        | st.floats(allow_nan=False)
        | st.text()
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(values)
    def round_trip(value):
        literal = ssdlab._toml_value(value)
        assert tomllib.loads(f"v = {literal}")["v"] == value

    round_trip()


# --- the console script --------------------------------------------------------------------------


def ssdlab_script() -> str:
    """The installed `ssdlab` console script (found even when the venv is not activated)."""
    for scheme in (None, f"{os.name}_user"):
        scripts = (
            sysconfig.get_path("scripts")
            if scheme is None
            else sysconfig.get_path("scripts", scheme)
        )
        for name in ("ssdlab", "ssdlab.exe"):
            path = Path(scripts) / name
            if path.is_file():
                return str(path)
    found = shutil.which("ssdlab")
    if found is None:
        pytest.fail("the `ssdlab` console script is not installed")
    return found


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ssdlab_script(), *args], check=False, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("streams", [False, True])
def test_request_log_in_parquet_csv_and_python_is_the_same(tmp_path, streams):
    import pandas
    from pandas.testing import assert_frame_equal

    trace = MSR
    if streams:
        trace = tmp_path / "streams.csv"
        trace.write_text(STREAMS_TRACE)
    args = ["run", "--config", str(SMALL), "--set", "host.out_of_range=wrap", "--trace", str(trace)]
    for form, flag in [("csv", "--log-requests"), ("parquet", "--log-requests=parquet")]:
        out = cli(*args, "--out", str(tmp_path / form), flag)
        assert out.returncode == 0, out.stderr
        assert [p.name for p in (tmp_path / form).glob("requests.*")] == [f"requests.{form}"]
    text = pandas.read_csv(tmp_path / "csv" / "requests.csv")
    parquet = pandas.read_parquet(tmp_path / "parquet" / "requests.parquet")
    frame = run_small(trace, log_requests=True).requests
    columns = [*COLUMNS, "stream"] if streams else COLUMNS
    assert list(text.columns) == list(parquet.columns) == list(frame.columns) == columns
    assert len(text) == (3 if streams else trace_lines(MSR))
    # Parquet keeps the engine's widths: unsigned flow and stream, int64 elsewhere.
    widths = {"flow": "uint32", "stream": "uint16"}
    expected = {c: widths.get(c, "int64") for c in columns if c != "op"}
    assert parquet.drop(columns="op").dtypes.to_dict() == expected
    as_text = {c: "int64" for c in columns} | {"op": str}
    assert_frame_equal(parquet.astype(as_text), text.astype(as_text))
    assert_frame_equal(frame.astype(as_text), text.astype(as_text))
    assert_frame_equal(frame, parquet.astype({"op": frame["op"].dtype}))


def test_cli_refuses_an_unknown_request_log_format(tmp_path):
    out = cli("run", "--trace", str(MSR), "--out", str(tmp_path), "--log-requests=json")
    assert out.returncode == 2
    assert "[possible values: csv, parquet]" in out.stderr


def test_cli_presets():
    out = cli("presets")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "default"
    assert {line.split()[0] for line in out.stdout.splitlines() if line.strip()} == set(
        ssdlab.presets()
    )
    shown = cli("presets", "--show", "default")
    assert shown.returncode == 0
    assert shown.stdout == ssdlab.preset_toml("default")


def test_cli_run_json_is_the_api_summary():
    args = ["run", "--json", "--config", str(SMALL), "--set", "host.out_of_range=wrap"]
    out = cli(*args, "--trace", str(MSR), "--verify")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)  # nothing but JSON on stdout
    assert summary["requests"]["count"] == trace_lines(MSR)
    assert summary["integrity"]["violations"] == 0
    api = run_small(MSR, verify=True).summary
    assert without_wall_time(summary) == without_wall_time(api)


def test_cli_errors_and_version():
    out = cli("run", "--preset", "no-such-preset", "--trace", str(MSR))
    assert out.returncode == 2
    assert out.stdout == ""
    assert "unknown preset `no-such-preset`" in out.stderr
    out = cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"ssdlab {ssdlab.__version__}"
    out = cli("frobnicate")
    assert out.returncode == 2
    assert "Usage: ssdlab" in out.stderr


def test_python_dash_m():
    out = subprocess.run(
        [sys.executable, "-m", "ssdlab", "presets"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "default" in out.stdout


# --- trace formats -------------------------------------------------------------------------------

FIU = ROOT / "traces" / "fiu_mail_cheetah_day2_first2000.blkparse.gz"


def test_trace_info_is_a_dict_of_statistics():
    info = ssdlab.trace_info(FIU)
    assert info["format"] == "fiu"
    assert info["requests"] == 2000
    assert info["reads"] == 1982
    assert info["read_bytes_mean"] == 4096.0
    assert info["time_span_ns"] == 2_919_340_318
    assert info["address_span_bytes"] > 0
    assert ssdlab.trace_info(MQSIM, format="mqsim")["requests"] == trace_lines(MQSIM)
    with pytest.raises(SsdlabError, match="mqsim, ssdsim"):
        ssdlab.trace_info(MQSIM)


def test_errors_name_options_as_python_writes_them(tmp_path):
    # Detection cannot choose among the DiskSim family: the error says `format=`, not `--format`.
    for call in (lambda: ssdlab.trace_info(MQSIM), lambda: run_small(MQSIM)):
        with pytest.raises(SsdlabError) as e:
            call()
        msg = str(e.value)
        assert "name one with format=" in msg, msg
        assert "--format" not in msg and "--columns" not in msg, msg
    # A blkparse capture without the asked-for event: the hint is `blkparse_event=`.
    only_d = tmp_path / "only_d.txt"
    only_d.write_text("  8,16   3        4     0.000011950  3645  D   R 4938888 + 256 [java]\n")
    with pytest.raises(SsdlabError, match="nothing to replay") as e:
        run_small(only_d, blkparse_event="q")
    assert 'blkparse_event="d"' in str(e.value) and "--blkparse-event" not in str(e.value)


HEIMDALL = ROOT / "traces" / "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz"
HEIMDALL_COLUMNS = {
    "time_ms": 1, "offset_bytes": 3, "size_bytes": 4, "op": 5, "read": ["1"], "write": ["0"]
}


def test_a_columns_trace_is_described_by_a_dict():
    info = ssdlab.trace_info(HEIMDALL, format=HEIMDALL_COLUMNS)
    assert (info["format"], info["requests"], info["reads"]) == ("columns", 10_000, 8_316)
    assert round(info["write_bytes_mean"], 1) == 56191.1
    s = run_small([(HEIMDALL, HEIMDALL_COLUMNS)]).summary
    assert s["requests"]["count"] == 10_000 and s["requests"]["read"] == 8_316
    flow = s["config"]["flows"][0]
    assert flow["format"] == "columns" and flow["columns"]["time_ms"] == 1
    with pytest.raises(SsdlabError, match=r"format=\{\.\.\.\}: `time_ms`") as e:
        run_small(HEIMDALL, format={**HEIMDALL_COLUMNS, "time_ms": "first"})
    assert "--columns" not in str(e.value)


def test_stream_ids_go_from_a_trace_to_the_request_log(tmp_path):
    native = tmp_path / "streams.csv"
    native.write_text(STREAMS_TRACE)
    spaced = tmp_path / "streams.txt"
    spaced.write_text("0 0 4096 W 3\n1000000 8192 4096 W 0\n2000000 0 4096 R 65535\n")
    described = {"time_ns": 1, "offset_bytes": 2, "size_bytes": 3, "op": 4, "read": ["R"],
                 "write": ["W"], "stream": 5}
    for trace in [native, (spaced, described)]:
        df = run_small(trace, log_requests=True).requests
        assert list(df.columns) == [*COLUMNS, "stream"]
        assert df.sort_values("arrival_ns")["stream"].tolist() == [3, 0, 65535]
        assert df["stream"].dtype.kind in "iu"
    # Without stream ids the log is as before: no stream column.
    assert list(run_small(log_requests=True).requests.columns) == COLUMNS
    native.write_text("arrival_ns,offset_bytes,size_bytes,op,stream\n0,0,4096,write,65536\n")
    with pytest.raises(SsdlabError, match=r"streams\.csv:2: field `stream`"):
        run_small(native)


def test_an_empty_trace_is_refused(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(SsdlabError, match="nothing to replay: the file is empty"):
        run_small(empty, format="msr")


def test_blkparse_event_is_chosen_and_recorded(tmp_path):
    only_d = tmp_path / "only_d.txt"
    only_d.write_text("  8,16   3        4     0.000011950  3645  D   R 4938888 + 256 [java]\n")
    s = run_small(only_d).summary
    assert s["requests"]["count"] == 1
    assert s["config"]["flows"][0]["blkparse_event"] == "d"
    assert ssdlab.trace_info(only_d)["blkparse_event"] == "d"


def test_format_is_detected_when_not_given():
    s = ssdlab.simulate(SMALL, [MSR, FIU], set=WRAP).summary
    assert [f["format"] for f in s["config"]["flows"]] == ["msr", "fiu"]
    assert s["requests"]["count"] == trace_lines(MSR) + 2000


def test_read_policies_raf_and_energy_through_python():
    # SPREAD's KV workload (2 KiB reads on codeword boundaries): spFTL senses only what is asked
    # (RAF 1), pageFTL whole 16 KiB pages; sensing less also spends less read energy.
    runs = {
        p: ssdlab.simulate("spread", workload="spread-kv", set={"ftl.read_policy.policy": p}).summary
        for p in ("full", "subpage")
    }
    assert runs["subpage"]["raf"] == 1.0
    assert runs["full"]["raf"] > 7.0
    assert runs["subpage"]["energy_uj"]["read"] < runs["full"]["energy_uj"]["read"] / 3
    assert runs["subpage"]["iops"] > 2 * runs["full"]["iops"]
    assert set(runs["full"]["energy_uj"]) >= {"read_sense", "read_transfer", "program", "erase", "total"}
