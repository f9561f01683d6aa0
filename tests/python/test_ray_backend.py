"""Tests of ``ssdlab experiment FILE --backend ray`` against a local Ray instance the tests start
(two CPUs): the same outputs as the local backend, the result cache, a failed run, and the bad
command lines. A tiny grid on the small test device keeps it to seconds of simulation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ray
import ssdlab.cli
import ssdlab.ray_backend
from ssdlab import _core
from ssdlab.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "crates" / "ssdlab" / "tests" / "data" / "small.toml"

MIXED = """
[[workloads]]
label = "mixed"
generator = { requests = 1500, read_fraction = 0.7, working_set_bytes = 16777216, \
size = { kind = "choice", bytes = [4096, 8192], weights = [3, 2] }, \
arrival = { kind = "closed", queue_depth = 4 } }
"""


def experiment(tmp_path: Path, labels: tuple[str, ...], seeds: list[int], workloads: str) -> Path:
    """An experiment file in ``tmp_path``: one config per read policy in ``labels`` on the small
    device, ``workloads`` (TOML) and ``seeds``."""
    configs = "".join(
        f'[[configs]]\nlabel = "{label}"\npreset = "default"\nconfig_file = "{SMALL}"\n'
        f'set = {{ "ftl.read_policy.policy" = "{label}" }}\n'
        for label in labels
    )
    file = tmp_path / "grid.toml"
    file.write_text(
        'name = "ray grid"\nmetrics = ["iops", "latency_ns.read.mean", "waf"]\n'
        f"seeds = {seeds}\n{configs}{workloads}"
    )
    return file


class Recorded:
    """The Ray executor, recording the runs the engine gives it (their grid positions)."""

    def __init__(self, address: str | None) -> None:
        self.executor = ssdlab.ray_backend.connect(address)
        self.submitted: list[int] = []

    def run(self, tasks):
        self.submitted.extend(index for index, _ in tasks)
        return self.executor.run(tasks)


@pytest.fixture(scope="module")
def ray_instance():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture
def recorded(monkeypatch, ray_instance) -> list[Recorded]:
    """Every executor the console script connects for ``--backend ray``, in order."""
    made: list[Recorded] = []

    def connect(address):
        made.append(Recorded(address))
        return made[-1]

    monkeypatch.setattr(ssdlab.cli, "ray_connect", connect)
    return made


def run(*args: str) -> int:
    """The console script's exit status for ``ssdlab ARGS``."""
    with pytest.raises(SystemExit) as done:
        cli_main(["ssdlab", *map(str, args)])
    return done.value.code


def runs_without_wall_time(out: Path) -> dict[str, dict]:
    """``runs/*.json`` by name, without the one field that differs from run to run (the
    summary's ``wall_time_s``)."""
    records = {}
    for f in sorted((out / "runs").glob("*.json")):
        record = json.loads(f.read_text())
        del record["summary"]["wall_time_s"]
        records[f.name] = record
    return records


def test_ray_writes_what_the_local_backend_writes_and_reruns_from_the_cache(tmp_path, recorded):
    file = experiment(tmp_path, ("full", "dma"), [1, 2], MIXED)
    local, remote = tmp_path / "local", tmp_path / "ray"
    assert run("experiment", file, "--out", local, "--jobs", "2") == 0
    assert run("experiment", file, "--out", remote, "--backend", "ray") == 0
    assert sorted(recorded[0].submitted) == [0, 1, 2, 3]
    # Byte for byte: the summaries came back through JSON text, their floats exactly.
    assert (remote / "results.csv").read_bytes() == (local / "results.csv").read_bytes()
    records = runs_without_wall_time(remote)
    assert len(records) == 4 and records == runs_without_wall_time(local)
    assert (remote / "experiment.json").read_bytes() == (local / "experiment.json").read_bytes()
    # The report differs in the command it quotes (its --out) only.
    report = (remote / "report.md").read_text().replace(str(remote), str(local))
    assert report == (local / "report.md").read_text()

    # A rerun gives Ray nothing; one run's file gone, only that run.
    assert run("experiment", file, "--out", remote, "--backend", "ray") == 0
    assert recorded[1].submitted == []
    (remote / "runs" / "dma--mixed--seed1.json").unlink()
    assert run("experiment", file, "--out", remote, "--backend", "ray") == 0
    assert recorded[2].submitted == [2]
    assert (remote / "results.csv").read_bytes() == (local / "results.csv").read_bytes()


def test_a_failed_run_is_named_and_the_finished_runs_are_kept(tmp_path, recorded, capfd):
    # A trace with no request: the grid expands (its key hashes the file), the run fails where
    # it runs (nothing to replay).
    trace = tmp_path / "trace.csv"
    trace.write_text("")
    workloads = MIXED + f'[[workloads]]\nlabel = "trace"\ntrace = "{trace}"\nformat = "msr"\n'
    file = experiment(tmp_path, ("full",), [1], workloads)
    out = tmp_path / "out"
    capfd.readouterr()
    # Bad input (nothing to replay) exits 2, as the local backend does.
    assert run("experiment", file, "--out", tmp_path / "local") == 2
    capfd.readouterr()
    assert run("experiment", file, "--out", out, "--backend", "ray") == 2
    err = capfd.readouterr().err
    assert "run full × trace (seed 1):" in err and "nothing to replay" in err, err
    assert "after 3 attempts" in err, err
    assert [f.name for f in (out / "runs").glob("*.json")] == ["full--mixed--seed1.json"]
    assert not (out / "results.csv").exists()

    # Requests in the trace, a rerun runs only the failed run.
    trace.write_text("".join(f"{i},hm,0,Read,{4096 * i},4096,0\n" for i in range(1, 50)))
    assert run("experiment", file, "--out", out, "--backend", "ray") == 0
    assert recorded[1].submitted == [1]
    assert len((out / "results.csv").read_text().splitlines()) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--address", "auto"], "--address is the Ray cluster's: give --backend ray"),
        (["--backend", "ray", "--jobs", "2"], "--jobs is the local backend's"),
        (["--backend", "dask"], "invalid value 'dask' for '--backend <BACKEND>'"),
    ],
)
def test_bad_backend_options_are_usage_errors(tmp_path, capfd, args, message):
    file = experiment(tmp_path, ("full",), [1], MIXED)
    assert run("experiment", file, "--out", tmp_path / "out", *args) == 2
    assert message in capfd.readouterr().err
    assert not (tmp_path / "out").exists()


def test_ray_needs_the_python_package_with_ray(tmp_path, capfd, monkeypatch):
    file = experiment(tmp_path, ("full",), [1], MIXED)
    args = ["experiment", str(file), "--out", str(tmp_path / "out"), "--backend", "ray"]
    # The engine's own command line (the native binary's): no Ray.
    assert _core.cli_main(["ssdlab", *args]) == 2
    err = capfd.readouterr().err
    assert "the Ray backend runs through the Python package's `ssdlab` command" in err, err
    assert "pip install 'ssdlab[ray]'" in err
    # The console script where Ray is not installed (its import fails).
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    assert run(*args) == 2
    err = capfd.readouterr().err
    assert "--backend ray: Ray is not installed" in err and "pip install 'ssdlab[ray]'" in err
    assert "Traceback" not in err
