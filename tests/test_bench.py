"""The benchmark harness: every module in --quick mode, the JSON record and its schema, --compare,
--plot, the Markdown tables, and a failing module that does not hide the others."""

import contextlib
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import paperkernels
from paperkernels import benchmarks
from paperkernels.__main__ import main
from paperkernels.benchmarks import _harness, analysis
from paperkernels.benchmarks._harness import Recorder, measure

ROOT = Path(__file__).resolve().parents[1]
ISAS = {"avx512", "avx2", "sse2", "baseline"}


def _cli(args, cwd, timeout=600):
    """python -m paperkernels in a child process, importing this same paperkernels, from `cwd`."""
    env = dict(os.environ)
    package_parent = str(Path(paperkernels.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "paperkernels", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """One --quick run of every benchmark, from a directory without any benchmark scripts."""
    where = tmp_path_factory.mktemp("bench")
    path = where / "quick.json"
    done = _cli(["bench", "--quick", "--json", str(path)], cwd=where)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return path, json.loads(path.read_text()), done.stdout


def test_quick_run_covers_every_module(quick):
    _, record, stdout = quick
    assert list(record["modules"]) == list(benchmarks.BENCHMARKS)
    for name, entry in record["modules"].items():
        if entry["status"] == "skipped":  # only when the module's own requirement is missing
            assert any(s["module"] == name for s in record["skipped"]), name
            continue
        assert entry["status"] == "ok", (name, entry["error"])
        mine = [m for m in record["measurements"] if m["module"] == name]
        assert mine, name
        assert any(m["role"] == "paperkernels" for m in mine), name
        assert [c for c in record["checks"] if c["module"] == name], f"{name}: no agreement check ran"
    assert all(c["passed"] for c in record["checks"])
    for m in record["measurements"]:
        assert m["threads"] >= 1 and m["isa"] in ISAS
        assert m["spread"]["min"] <= m["value"] <= m["spread"]["max"]
        assert m["spread"]["min"] <= m["spread"]["median"] <= m["spread"]["max"]
        # every timed measurement refers to checks that ran in its module before it
        ids = {c["id"] for c in record["checks"] if c["module"] == m["module"]}
        assert set(m["checks"]) <= ids
    assert "summary" in stdout
    assert record["quick"] is True


def test_record_metadata(quick):
    _, record, _ = quick
    machine = record["machine"]
    assert machine["cpu"]["model"] and machine["cores"]["available"] >= 1
    assert record["isa"] in ISAS
    assert record["build"]["compiler_id"] and record["build"]["cxx_flags"]
    assert "-ffp-contract=off" in record["build"]["cxx_flags"]
    software = record["software"]
    assert software["numpy"] and software["python"] and "scikit-learn" in software["peers"]


def test_record_matches_the_schema(quick):
    _, record, _ = quick
    assert benchmarks.validate(record) == []
    errors = []
    benchmarks._small_validate(record, benchmarks.load_schema(), "record", errors)
    assert errors == []


def test_schema_rejects_a_broken_record(quick):
    _, record, _ = quick
    broken = copy.deepcopy(record)
    del broken["measurements"][0]["value"]
    broken["measurements"][1]["threads"] = 0
    broken["isa"] = "mmx"
    errors = benchmarks.validate(broken)
    assert len(errors) >= 3
    small = []
    benchmarks._small_validate(broken, benchmarks.load_schema(), "record", small)
    assert len(small) >= 3


def test_compare_the_same_run_flags_nothing(quick, tmp_path):
    path, record, _ = quick
    result = analysis.compare(record, copy.deepcopy(record))
    assert result["rows"] and not any(r["verdict"] for r in result["rows"])
    done = _cli(["bench", "--compare", str(path), str(path)], cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "0 of" in done.stdout and "SLOWER" not in done.stdout


def _slowed(record, factor=2.0):
    slow = copy.deepcopy(record)
    for m in slow["measurements"]:
        if not m["clock"]:
            continue
        f = factor if m["better"] == "lower" else 1 / factor
        m["value"] *= f
        for k in ("min", "median", "max"):
            m["spread"][k] *= f
    return slow


def test_compare_flags_a_planted_slowdown(quick, tmp_path):
    path, record, _ = quick
    slow = _slowed(record)
    result = analysis.compare(record, slow)
    by_key = {tuple(r["key"]): r for r in result["rows"]}
    narrow = [m for m in record["measurements"] if m["clock"] and m["spread"]["max"] < 1.9 * m["spread"]["min"]]
    assert len(narrow) >= 10
    for m in narrow:  # a 2x change beyond the measured spread is flagged as a slowdown
        assert by_key[analysis.key(m)]["verdict"] == "slower", m
    assert not any(r["verdict"] == "faster" for r in result["rows"])
    slow_path = tmp_path / "slow.json"
    slow_path.write_text(json.dumps(slow))
    done = _cli(["bench", "--compare", str(path), str(slow_path)], cwd=tmp_path)
    assert done.returncode == 1 and "SLOWER" in done.stdout


def test_compare_refuses_runs_from_different_machines(quick, tmp_path):
    path, record, _ = quick
    other = copy.deepcopy(record)
    other["machine"]["cpu"]["model"] = "Some Other CPU"
    with pytest.raises(analysis.MachineMismatch, match="different machines"):
        analysis.compare(record, other)
    assert analysis.compare(record, other, force=True)["rows"]
    other_path = tmp_path / "other.json"
    other_path.write_text(json.dumps(other))
    done = _cli(["bench", "--compare", str(path), str(other_path)], cwd=tmp_path)
    assert done.returncode == 2 and "different machines" in done.stdout and "--force" in done.stdout
    done = _cli(["bench", "--compare", str(path), str(other_path), "--force"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout


def test_plot_renders(quick, tmp_path):
    pytest.importorskip("matplotlib")
    _, record, _ = quick
    png = tmp_path / "speedups.png"
    analysis.plot(record, str(png))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_markdown_and_readme_blocks(quick):
    _, record, _ = quick
    text = analysis.markdown(record)
    for name, entry in record["modules"].items():
        if entry["status"] == "ok":
            assert analysis.markdown(record, name).strip()
    assert "speed-up" in text and record["isa"] in text
    readme = (
        "intro\n"
        + analysis.BEGIN.format(module="greedy")
        + "\nold table\n"
        + analysis.END.format(module="greedy")
        + "\nrest\n"
    )
    updated, done = analysis.render_tables(record, readme)
    assert done == ["greedy"] and "old table" not in updated and updated.endswith("rest\n")
    assert analysis.markdown(record, "greedy") in updated


BENCHMARKS_PAGE = ROOT / "docs" / "benchmarks.md"


def test_benchmarks_page_has_a_block_per_module():
    if not BENCHMARKS_PAGE.exists():
        pytest.skip("not a source checkout")
    text = BENCHMARKS_PAGE.read_text()
    for name in benchmarks.BENCHMARKS:
        assert analysis.BEGIN.format(module=name) in text, name
        assert analysis.END.format(module=name) in text, name


def test_a_failing_module_does_not_hide_the_others(monkeypatch, tmp_path, capsys):
    from paperkernels.benchmarks import greedy, relu, toptwo

    def fine(rec: Recorder) -> None:
        rec.check("w", "a vs b", "max |difference|", 0.0, 1e-12)
        rec.time("w", "paperkernels", measure(lambda: None, repeat=2), threads=1)

    def disagrees(rec: Recorder) -> None:
        rec.check("w", "a vs b", "max |difference|", 1.0, 1e-12)
        raise AssertionError("timed despite a failed check")

    def crashes(rec: Recorder) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(toptwo, "run", fine)
    monkeypatch.setattr(greedy, "run", disagrees)
    monkeypatch.setattr(relu, "run", crashes)
    path = tmp_path / "run.json"
    status = main(["bench", "greedy", "relu", "toptwo", "--json", str(path)])
    assert status == 1
    record = json.loads(path.read_text())
    assert record["modules"]["greedy"]["status"] == "failed"
    assert "agreement check failed" in record["modules"]["greedy"]["error"]
    assert record["modules"]["relu"]["status"] == "failed" and "boom" in record["modules"]["relu"]["error"]
    assert record["modules"]["toptwo"]["status"] == "ok"
    assert [m["module"] for m in record["measurements"]] == ["toptwo"]
    assert [c["passed"] for c in record["checks"]] == [False, True]
    assert "FAILED: greedy, relu" in capsys.readouterr().out


def test_simd_kernels_have_a_row_per_isa_and_dense_ones_the_dgemm_rate(quick):
    _, record, stdout = quick
    supported = paperkernels.supported_isas()
    assert record["supported_isas"] == supported
    for module, workload, metric in (
        ("greedy", "dense", "time per fit"),
        ("greedy", "wide", "time per fit"),
        ("shapes", "masks", "throughput"),
        ("relu", "canonical form", "time per form"),
        ("toptwo", "scaling K=1000", "throughput"),  # the cost index
        ("toptwo", "long episode K=1000", "throughput"),
    ):
        rows = [
            m
            for m in record["measurements"]
            if m["module"] == module
            and m["workload"].startswith(workload)
            and m["contender"] == "paperkernels"
            and m["threads"] == 1
            and m["metric"] == metric
        ]
        by_workload = {}
        for m in rows:
            by_workload.setdefault(m["workload"], []).append(m["isa"])
        assert by_workload, (module, workload)
        for isas in by_workload.values():  # one row per instruction set, none twice
            assert sorted(isas) == sorted(supported), (module, workload, isas)
    pairs = analysis.speedups(record["measurements"])
    for module in ("greedy", "shapes"):
        rates = [m for m in record["measurements"] if m["module"] == module and m["metric"] == "arithmetic rate"]
        dgemm = [m for m in rates if m["contender"] == _harness.DGEMM]
        ours = [m for m in rates if m["contender"] == "paperkernels"]
        assert len(dgemm) == 1 and dgemm[0]["unit"] == "GFLOP/s" and dgemm[0]["value"] > 0.1, module
        assert sorted(m["isa"] for m in ours) == sorted(supported), module
        assert all(m["unit"] == "GFLOP/s" and m["better"] == "higher" and m["value"] > 0 for m in ours)
        against = [p for p in pairs if p["module"] == module and p["peer"] == _harness.DGEMM]
        assert sorted(p["isa"] for p in against) == sorted(supported), module
        for p in against:  # the fraction of the dgemm rate reached
            assert p["speedup"] == pytest.approx(p["ours"] / p["theirs"])
    assert _harness.DGEMM in stdout and "arithmetic rate" in stdout
    # one row per instruction set in the Markdown tables too
    text = analysis.markdown(record, "greedy")
    if len(supported) > 1:
        assert "| ISA |" in text and all(f"| {isa} |" in text for isa in supported)


def test_recorder_measures_under_each_isa_and_restores_it():
    before = paperkernels.get_isa()
    rec = Recorder("greedy", True, before)
    seen = []
    for isa in rec.each_isa():
        assert paperkernels.get_isa() == isa == rec.isa
        seen.append(isa)
        rec.time("w", "paperkernels", measure(lambda: None, repeat=1), threads=1)
    assert seen == paperkernels.supported_isas()
    assert paperkernels.get_isa() == before and rec.isa == before
    assert [m["isa"] for m in rec.measurements] == seen
    with pytest.raises(RuntimeError):  # an error inside still restores the instruction set
        with rec.using_isa("sse2"):
            raise RuntimeError
    assert paperkernels.get_isa() == before and rec.isa == before
    # measurements that differ only by instruction set stay apart when two runs are compared
    assert len({analysis.key(m) for m in rec.measurements}) == len(seen)


def test_dgemm_reference_counts_2mkn_operations():
    assert _harness.dgemm_flops(3, 4, 5) == 120.0
    timer = _harness.dgemm_timer(64, 32, 16, repeat=2, min_time=0.0)
    assert timer.clock == "cpu" and len(timer.samples) == 2
    assert all(units == pytest.approx(2 * 64 * 32 * 16 / 1e9) for _, units in timer.samples)


def test_unknown_module_is_refused(capsys):
    assert main(["bench", "nosuchmodule"]) == 2
    assert "unknown benchmark" in capsys.readouterr().out


def test_build_info_names_the_isa():
    from paperkernels import _core
    from paperkernels.benchmarks import _machine

    info = _core.build_info()
    assert info["isa"] in ISAS and info["compiler_id"] and info["build_type"]
    flags = _machine.cpu_description()["flags"]
    if flags and info["dispatch"]:
        assert info["isa"] == _machine.isa_from_flags(flags)


def test_benchmark_tables_match_the_recorded_run():
    recorded = ROOT / "tools" / "readme_bench.json"
    if not (recorded.exists() and BENCHMARKS_PAGE.exists()):
        pytest.skip("not a source checkout")
    record = benchmarks.read_json(str(recorded))
    assert benchmarks.validate(record) == [] and not record["quick"]
    text = BENCHMARKS_PAGE.read_text()
    updated, done = analysis.render_tables(record, text)
    assert done == list(benchmarks.BENCHMARKS)
    assert updated == text, (
        "docs/benchmarks.md tables differ from tools/readme_bench.json: "
        "run tools/render_bench.py tools/readme_bench.json"
    )


def test_render_bench_checks_the_benchmarks_page(tmp_path):
    """The renderer's default target is the benchmarks page, and --check sees a stale table."""
    recorded = ROOT / "tools" / "readme_bench.json"
    if not (recorded.exists() and BENCHMARKS_PAGE.exists()):
        pytest.skip("not a source checkout")
    tool = [sys.executable, str(ROOT / "tools" / "render_bench.py"), str(recorded)]
    env = dict(os.environ)
    package_parent = str(Path(paperkernels.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    done = subprocess.run(tool + ["--check"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "benchmarks.md" in done.stdout, done.stdout + done.stderr
    stale = tmp_path / "benchmarks.md"
    stale.write_text(BENCHMARKS_PAGE.read_text().replace("**", "", 2))
    done = subprocess.run(tool + [str(stale), "--check"], capture_output=True, text=True, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    done = subprocess.run(tool + [str(stale)], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and stale.read_text() == BENCHMARKS_PAGE.read_text()


@pytest.fixture
def no_run(monkeypatch):
    """Fails a test that would start a benchmark run."""

    def run(*args, **kwargs):
        raise AssertionError("benchmarks ran")

    monkeypatch.setattr(benchmarks, "run", run)


def _refused(args, capsys):
    """Runs main(args), which must stop with the argument error exit status 2; returns (stdout, stderr)."""
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    return capsys.readouterr()


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_output_paths_are_checked_before_running(flag, tmp_path):
    start = time.perf_counter()
    done = _cli(["bench", "toptwo", "--quick", flag, str(tmp_path / "missing" / "out")], cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert f"error: {flag} " in done.stderr and "missing" in done.stderr and "Traceback" not in done.stderr
    assert time.perf_counter() - start < 30


def test_output_path_that_is_a_directory_or_not_writable(no_run, tmp_path, capsys):
    out, err = _refused(["bench", "toptwo", "--json", str(tmp_path)], capsys)
    assert out == "" and "--json" in err and "directory" in err
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return  # root writes anywhere
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    out, err = _refused(["bench", "toptwo", "--plot", str(locked / "x.png")], capsys)
    assert out == "" and "--plot" in err and "Permission denied" in err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_output_path_refused_by_its_filesystem(no_run, capsys):
    # Root passes every permission test; /proc still refuses to create a file.
    out, err = _refused(["bench", "toptwo", "--json", "/proc/paperkernels-bench.json"], capsys)
    assert out == "" and "--json /proc/paperkernels-bench.json: No such file or directory" in err


def test_same_file_for_record_and_figure_is_refused(no_run, tmp_path, capsys):
    out, err = _refused(
        ["bench", "toptwo", "--json", str(tmp_path / "x.png"), "--plot", str(tmp_path / "x.png")], capsys
    )
    assert out == "" and "--json and --plot name the same file" in err
    (tmp_path / "rec.json").write_text("")
    os.link(tmp_path / "rec.json", tmp_path / "fig.png")  # one file under two names
    record, figure = str(tmp_path / "rec.json"), str(tmp_path / "fig.png")
    out, err = _refused(["bench", "toptwo", "--json", record, "--plot", figure], capsys)
    assert out == "" and "--json and --plot name the same file" in err


def test_probing_a_dangling_symlink_leaves_nothing_behind(no_run, tmp_path, capsys):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    _refused(["bench", "toptwo", "--json", str(link), "--plot", str(tmp_path / "bad.txt")], capsys)
    assert link.is_symlink() and not (tmp_path / "target.json").exists()


def test_unknown_option_is_named_with_the_command_usage(no_run, capsys):
    out, err = _refused(["bench", "--quick", "--bogus"], capsys)
    assert out == "" and "usage: python -m paperkernels bench" in err
    assert "bench: error: unrecognized arguments: --bogus" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_output_path_that_is_a_pipe_without_reader_does_not_hang(quick, monkeypatch, tmp_path, capsys):
    record = _fresh_run(quick, monkeypatch, tmp_path)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    assert main(["bench", "--json", str(pipe)]) == 2  # no reader when the record is written
    out = capsys.readouterr().out
    assert f"--json {pipe}: No such device or address" in out and _kept_file(out, tmp_path) == record


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="needs /dev/stdout")
def test_record_to_standard_output_follows_the_report(tmp_path):
    done = _cli(["bench", "relu", "--quick", "--json", "/dev/stdout"], cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    start, end = done.stdout.index("\n{") + 1, done.stdout.index("\n}\n") + 3
    assert done.stdout.startswith("  paperkernels ") and "== summary ==" in done.stdout[:start]
    assert json.loads(done.stdout[start:end])["modules"]["relu"]["status"] == "ok"
    assert done.stdout[end:].strip() == "wrote /dev/stdout"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_output_path_that_is_a_pipe_with_a_reader_gets_the_record(quick, monkeypatch, tmp_path, capsys):
    # Checking the path must not end the reader's input before the record comes.
    record = _fresh_run(quick, monkeypatch, tmp_path)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # a reader from the start
    chunks = []

    def read_all():
        # Until the writer has come and gone (before it comes, a read finds no writer: b"").
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                chunk = os.read(reader, 1 << 16)
            except BlockingIOError:  # a writer, no data yet
                chunk = None
            if chunk:
                chunks.append(chunk)
            elif chunk == b"" and chunks:
                return
            else:
                time.sleep(0.01)

    thread = threading.Thread(target=read_all)
    thread.start()
    try:
        assert main(["bench", "--json", str(pipe)]) == 0
    finally:
        thread.join(timeout=60)
        os.close(reader)
    assert json.loads(b"".join(chunks)) == record


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_figure_to_a_pipe_is_refused_before_running(no_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    pipe = tmp_path / "figure.svg"
    os.mkfifo(pipe)  # no reader: writing the figure would wait forever
    out, err = _refused(["bench", "toptwo", "--plot", str(pipe)], capsys)
    assert out == "" and f"--plot {pipe}: expected a regular file for the figure" in err


def test_figure_to_the_report_file_is_refused_before_running(tmp_path):
    pytest.importorskip("matplotlib")
    report = tmp_path / "report.svg"
    env = dict(os.environ, PYTHONPATH=str(Path(paperkernels.__file__).resolve().parents[1]))
    with report.open("w") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "paperkernels", "bench", "toptwo", "--plot", str(report)],
            cwd=tmp_path,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2 and "is where this command prints its report" in done.stderr


@pytest.mark.parametrize("name", ["speedups", "speedups.txt"])
def test_plot_file_needs_a_format_suffix(name, no_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, err = _refused(["bench", "toptwo", "--plot", str(tmp_path / name)], capsys)
    assert out == "" and "expected a file name ending in one of" in err and ".png" in err
    assert not (tmp_path / name).exists()


def test_pgf_figure_without_tex_is_refused_before_running(no_run, tmp_path, monkeypatch, capsys):
    matplotlib = pytest.importorskip("matplotlib")
    tex = matplotlib.rcParams["pgf.texsystem"]
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == tex else real_which(name, *a, **k))
    out, err = _refused(["bench", "toptwo", "--plot", str(tmp_path / "speedups.pgf")], capsys)
    assert out == "" and f"--plot {tmp_path / 'speedups.pgf'}: matplotlib writes .pgf figures with {tex}" in err


def _fresh_run(quick, monkeypatch, tmp_path):
    """Makes the next bench command 'run' by returning the recorded quick run; temporary files go to
    tmp_path / "temp". Returns the record."""
    _, record, _ = quick
    monkeypatch.setattr(benchmarks, "run", lambda *a, **k: copy.deepcopy(record))
    (tmp_path / "temp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    return record


def _kept_file(out, tmp_path):
    kept = list((tmp_path / "temp").iterdir())
    assert len(kept) == 1 and f"the results are kept in {kept[0]} (use it with --from)" in out
    return benchmarks.read_json(str(kept[0]))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_run_whose_record_cannot_be_written_is_kept(quick, monkeypatch, tmp_path, capsys):
    record = _fresh_run(quick, monkeypatch, tmp_path)
    assert main(["bench", "--json", "/dev/full"]) == 2
    out = capsys.readouterr().out
    assert "--json /dev/full: No space left on device" in out
    assert _kept_file(out, tmp_path) == record


def test_a_run_whose_only_figure_fails_is_kept(quick, monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    record = _fresh_run(quick, monkeypatch, tmp_path)

    def fail(*args, **kwargs):
        raise RuntimeError("the renderer gave up")

    monkeypatch.setattr(analysis, "plot", fail)
    assert main(["bench", "--plot", str(tmp_path / "speedups.png")]) == 2
    out = capsys.readouterr().out
    assert f"--plot {tmp_path / 'speedups.png'}: the renderer gave up" in out
    assert _kept_file(out, tmp_path) == record
    # With the record written where asked, nothing else is kept.
    assert main(["bench", "--json", str(tmp_path / "run.json"), "--plot", str(tmp_path / "s.png")]) == 2
    out = capsys.readouterr().out
    assert "kept in" not in out and benchmarks.read_json(str(tmp_path / "run.json")) == record


def test_a_run_that_cannot_be_kept_either_is_reported(quick, monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _fresh_run(quick, monkeypatch, tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    monkeypatch.setattr(analysis, "plot", _raise(OSError(28, "No space left on device")))
    assert main(["bench", "--plot", str(tmp_path / "speedups.png")]) == 2
    out = capsys.readouterr().out
    assert f"--plot {tmp_path / 'speedups.png'}: No space left on device" in out
    assert f"the results could not be kept either ({tmp_path / 'missing'}: No such file or directory)" in out


def test_a_kept_record_that_fails_halfway_is_removed(quick, monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _fresh_run(quick, monkeypatch, tmp_path)

    def half_written(record, path):
        Path(path).write_text("{")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(benchmarks, "write_json", half_written)
    monkeypatch.setattr(analysis, "plot", _raise(ValueError("no figure")))
    assert main(["bench", "--plot", str(tmp_path / "speedups.png")]) == 2
    assert "the results could not be kept either" in capsys.readouterr().out
    assert list((tmp_path / "temp").iterdir()) == []


class _LatexError(Exception):
    """Like matplotlib's LatexError: not a RuntimeError."""


def test_any_failure_of_the_figure_is_an_output_error_that_wins(quick, monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    record = _fresh_run(quick, monkeypatch, tmp_path)
    failed = copy.deepcopy(record)
    name = next(iter(failed["modules"]))
    failed["modules"][name]["status"], failed["modules"][name]["error"] = "failed", "boom"
    monkeypatch.setattr(benchmarks, "run", lambda *a, **k: copy.deepcopy(failed))
    monkeypatch.setattr(analysis, "plot", _raise(_LatexError("LaTeX errored")))
    # A failed module alone gives 1; a missing output gives 2, which wins.
    assert main(["bench", "--plot", str(tmp_path / "speedups.png")]) == 2
    out = capsys.readouterr().out
    assert f"--plot {tmp_path / 'speedups.png'}: LaTeX errored" in out and "the results are kept in" in out


def _raise(exc):
    def fail(*args, **kwargs):
        raise exc

    return fail


def test_checking_an_output_path_leaves_no_file(no_run, tmp_path, monkeypatch):
    written = []
    monkeypatch.setattr(benchmarks, "run", lambda *a, **k: written.append(list(tmp_path.iterdir())) or {})
    with contextlib.suppress(Exception):
        main(["bench", "toptwo", "--json", str(tmp_path / "out.json")])
    assert written == [[]]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--compare", "a.json", "b.json", "--json", "out.json"], ["--json"]),
        (["--from", "a.json", "--json", "out.json", "--markdown"], ["--json"]),
        (["--from", "a.json", "--quick", "--markdown"], ["--quick"]),
        (["--from", "a.json"], ["--from", "--plot", "--markdown"]),
        (["--compare", "a.json", "b.json", "--from", "c.json", "--markdown"], ["--from", "--compare"]),
        (["--compare", "a.json", "b.json", "c.json"], ["--compare"]),
        (["--compare", "a.json", "--threshold", "-1"], ["--threshold"]),
        (["--compare", "a.json", "--threshold", "nan"], ["--threshold"]),
        (["--threshold", "inf"], ["--threshold"]),
    ],
)
def test_ignored_or_invalid_options_are_refused(args, named, no_run, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the named files do not exist: refused before any is read
    out, err = _refused(["bench", *args], capsys)
    assert out == ""
    assert all(flag in err for flag in named), err
    assert not (tmp_path / "out.json").exists()


def test_module_names_select_part_of_a_recorded_run(quick, tmp_path, no_run, capsys):
    path, record, _ = quick
    assert main(["bench", "relu", "--from", str(path), "--markdown"]) == 0
    assert capsys.readouterr().out == analysis.markdown(record, "relu")
    assert main(["bench", "relu", "--compare", str(path), str(path)]) == 0
    relu = {analysis.key(m) for m in record["measurements"] if m["module"] == "relu"}
    assert f"0 of {len(relu)} measurements" in capsys.readouterr().out
    partial = copy.deepcopy(record)
    del partial["modules"]["relu"]
    partial_path = tmp_path / "partial.json"
    partial_path.write_text(json.dumps(partial))
    assert main(["bench", "relu", "--from", str(partial_path), "--markdown"]) == 2
    out = capsys.readouterr().out
    assert "relu" in out and "partial.json" in out and "|" not in out
