"""Command line: ``python -m paperkernels demo | bench [module ...] [options] | --version``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import shlex
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import MODULES, __version__
from ._report import Report


def run_demo(modules: Sequence[str], report: Report) -> int:
    names = list(modules) or list(MODULES)
    report.line(f"paperkernels {__version__} demo: {', '.join(names)}")
    for name in names:
        demo = importlib.import_module(f"paperkernels._demos.{name}")
        report.heading(f"paperkernels.{name}")
        start = time.perf_counter()
        demo.run(report)
        report.line(f"[{name}: {time.perf_counter() - start:.2f} s]")
    return 0


def _only(record: dict[str, Any], modules: Sequence[str], path: str) -> dict[str, Any]:
    """The part of a recorded run for the named modules (all of it if none are named)."""
    if not modules:
        return record
    missing = [m for m in modules if m not in record["modules"]]
    if missing:
        raise ValueError(f"{path}: no results for module(s) {missing}; it has {list(record['modules'])}")
    part = {**record, "modules": {m: record["modules"][m] for m in modules}}
    for key in ("checks", "measurements", "skipped"):
        part[key] = [x for x in record[key] if x["module"] in modules]
    return part


def run_bench(args: argparse.Namespace, report: Report) -> int:
    from . import benchmarks
    from .benchmarks import analysis

    recorded = args.source or (args.compare[1] if args.compare and len(args.compare) == 2 else None)
    try:
        old = _only(benchmarks.read_json(args.compare[0]), args.modules, args.compare[0]) if args.compare else None
        record = _only(benchmarks.read_json(recorded), args.modules, recorded) if recorded else None
        if old is not None and not args.force:  # refuse before spending time on a run
            from .benchmarks._machine import describe

            analysis.check_same_machine(old, record if record is not None else describe())
    except analysis.MachineMismatch as exc:
        report.line(f"refusing to compare: {exc}")
        return 2
    except ValueError as exc:
        report.line(str(exc))
        return 2
    status = 0
    unsaved = record is None  # a fresh run, until it is written somewhere
    if record is None:
        try:
            record = benchmarks.run(
                args.modules, quick=args.quick, report=report, command=["python -m paperkernels", *sys.argv[1:]]
            )
        except ValueError as exc:
            report.line(str(exc))
            return 2
        failed = benchmarks.failed_modules(record)
        status = 1 if failed else 0
        report.heading("summary")
        for name, entry in record["modules"].items():
            report.line(
                f"{name:<9} {entry['status']:<8} {entry['seconds']:7.1f} s"
                f"{'  ' + entry['error'] if entry['error'] else ''}"
            )
        for skipped in record["skipped"]:
            report.line(
                f"{skipped['module']}: {skipped['peer']} skipped ({skipped['reason']})"
                f"{': ' + skipped['hint'] if skipped['hint'] else ''}"
            )
        if failed:
            report.line(f"FAILED: {', '.join(failed)}")
        if args.json:
            try:
                benchmarks.write_json(record, args.json)
                report.line(f"wrote {args.json}")
            except OSError as exc:
                report.line(f"--json {_os_error(exc, args.json)}")
                status = 2
                _keep_record(record, report)
            unsaved = False
    if old is not None:
        try:
            result = analysis.compare(old, record, force=args.force, threshold=args.threshold)
        except analysis.MachineMismatch as exc:
            report.line(f"refusing to compare: {exc}")
            return 2
        report.heading(f"new / old ({args.compare[0]})")
        analysis.print_comparison(result, report)
        if result["regressions"]:
            status = status or 1
    if args.plot:
        try:
            analysis.plot(record, args.plot)
            report.line(f"wrote {args.plot}")
        except Exception as exc:  # matplotlib's own errors (a TeX run that fails, say) included
            why = _os_error(exc, args.plot) if isinstance(exc, OSError) else f"{shlex.quote(args.plot)}: {exc}"
            report.line(f"--plot {why}")
            status = 2  # an output asked for is missing: as for --json, whatever else happened
            if unsaved:  # the figure was the only output asked for: do not lose the run
                _keep_record(record, report)
    if args.markdown:
        print(analysis.markdown(record), end="")
    return status


def _keep_record(record: dict[str, Any], report: Report) -> None:
    """Saves a fresh run that could not go where it was asked to, in the temporary directory, so that
    ``--from`` can still draw or compare it."""
    from . import benchmarks

    path = None
    try:
        handle, path = tempfile.mkstemp(prefix="paperkernels-bench-", suffix=".json")
        os.close(handle)
        benchmarks.write_json(record, path)
    except OSError as exc:
        if path is not None:
            Path(path).unlink(missing_ok=True)  # not a partial record
        # tempfile.tempdir stays None when no usable temporary directory was found.
        where = path or tempfile.tempdir
        report.line(
            "the results could not be kept either "
            f"({_os_error(exc, where) if where else f'the temporary directory: {exc.strerror or exc}'})"
        )
        return
    report.line(f"the results are kept in {shlex.quote(path)} (use it with --from)")


def _os_error(exc: OSError, path: str) -> str:
    """``path: reason`` for a failed write, naming the path even where the error does not."""
    return f"{shlex.quote(path)}: {exc.strerror or exc}"


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def _unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written, or None. The file is opened for appending (and removed again
    if it did not exist): permission bits alone do not tell, for root or on pseudo-filesystems."""
    target = Path(path)
    if target.is_dir():
        return "is a directory"
    if not target.parent.is_dir():
        return f"no directory {str(target.parent)!r}"
    # The file the path leads to (through symlinks, even dangling ones, which stay the user's).
    real = Path(os.path.realpath(target))
    existed = real.exists()
    if existed and stat.S_ISFIFO(real.stat().st_mode):
        # Opening and closing a pipe would end its reader's input: only its permission is checked
        # here; the reader must be there when the record is written.
        return None if os.access(real, os.W_OK) else "Permission denied"
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666))
    except OSError as exc:
        return exc.strerror or str(exc)
    if not existed:
        real.unlink(missing_ok=True)
    return None


def _same_file(a: str, b: str) -> bool:
    """Whether two paths lead to one file (through symlinks or hard links)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def _plot_format_problem(path: str) -> str | None:
    """Why matplotlib would not write a figure to ``path`` (it picks the format from the suffix)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        return "expected a file name ending in one of " + ", ".join("." + f for f in formats)
    if suffix == "pgf":  # matplotlib sizes the text of a PGF figure with a TeX installation
        import matplotlib

        tex = matplotlib.rcParams["pgf.texsystem"]
        if shutil.which(tex) is None:
            return f"matplotlib writes .pgf figures with {tex}, which is not installed; choose .pdf, .svg or .png"
    return None


def check_bench_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Refuses combinations that would be ignored, and output paths that cannot be written, before
    anything runs."""
    compare = len(args.compare or ())
    if compare > 2:
        parser.error("--compare: expected OLD.json and at most one NEW.json")
    if args.source and compare == 2:
        parser.error("--from and --compare OLD.json NEW.json both name the new run: give one of them")
    recorded = "--from" if args.source else "--compare OLD.json NEW.json" if compare == 2 else ""
    for flag, given in (("--json", args.json), ("--quick", args.quick)):
        if recorded and given:
            parser.error(f"{flag} applies only when benchmarks run, not with {recorded} (a recorded run)")
    if args.source and not (args.plot or args.markdown or args.compare):
        parser.error("--from needs --plot PNG, --markdown or --compare OLD.json: it prints nothing on its own")
    if args.json and args.plot and _same_file(args.json, args.plot):
        parser.error(f"--json and --plot name the same file {args.json!r}: the figure would overwrite the record")
    for flag, path in (("--json", args.json), ("--plot", args.plot)):
        problem = _unwritable(path) if path else None
        if problem:
            parser.error(f"{flag} {path}: {problem}")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        parser.error("--plot needs matplotlib (pip install matplotlib)")
    problem = (_plot_target_problem(args.plot) or _plot_format_problem(args.plot)) if args.plot else None
    if problem:
        parser.error(f"--plot {args.plot}: {problem}")


def _plot_target_problem(path: str) -> str | None:
    """Why a figure cannot go to ``path`` although it can be opened: matplotlib truncates the file
    and may seek in it, so it must be a regular file, and not the one the report is printed to."""
    try:
        status = os.stat(path)
    except OSError:
        return None  # a new file
    if not stat.S_ISREG(status.st_mode):
        return "expected a regular file for the figure (matplotlib rewrites and seeks in it), not a pipe or device"
    from .benchmarks import standard_stream

    if standard_stream(status) is not None:
        return "is where this command prints its report; name another file for the figure"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperkernels", description=__doc__)
    parser.add_argument("--version", action="version", version=f"paperkernels {__version__}")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="run every module on small built-in examples")
    demo.add_argument("modules", nargs="*", metavar="module")
    bench = sub.add_parser(
        "bench",
        help="run the benchmarks against peer libraries (checks agreement first, then times)",
        description="Runs the benchmarks of the given modules (default: all of toptwo, cascade, greedy, shapes, "
        "relu, scaleout). Exit status 1 if a module failed or --compare found a slowdown; 2 for a usage "
        "error or an output (--json, --plot) that could not be written, which wins over 1.",
    )
    bench.add_argument("modules", nargs="*", metavar="module")
    bench.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run of the whole harness")
    bench.add_argument("--json", metavar="PATH", help="write every check and measurement, with machine data")
    bench.add_argument(
        "--compare",
        nargs="+",
        metavar="JSON",
        help="OLD.json [NEW.json]: new/old ratios per measurement (NEW: this run if omitted)",
    )
    bench.add_argument("--force", action="store_true", help="compare runs from different machines anyway")
    bench.add_argument(
        "--threshold",
        type=_threshold,
        default=0.05,
        help="relative change below which nothing is flagged, a number >= 0 (default 0.05)",
    )
    bench.add_argument("--plot", metavar="PNG", help="draw the speed-ups against each peer (matplotlib)")
    bench.add_argument("--markdown", action="store_true", help="print the results as Markdown tables")
    bench.add_argument(
        "--from",
        dest="source",
        metavar="JSON",
        help="use a recorded run (for --plot, --markdown, --compare) instead of running; "
        "module names select some of its modules",
    )
    args, extra = parser.parse_known_args(argv)
    if extra:  # named by the command's own usage line, not the top-level one
        {"demo": demo, "bench": bench}.get(args.command, parser).error(f"unrecognized arguments: {' '.join(extra)}")
    report = Report()
    if args.command == "demo":
        unknown = [m for m in args.modules if m not in MODULES]
        if unknown:
            parser.error(f"unknown module(s) {unknown}; expected some of {list(MODULES)}")
        return run_demo(args.modules, report)
    if args.command == "bench":
        check_bench_args(args, bench)
        return run_bench(args, report)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
