"""Command line: ``python -m paperkernels demo | bench [module ...] [options] | --version``."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

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


def run_bench(args: argparse.Namespace, report: Report) -> int:
    from . import benchmarks
    from .benchmarks import analysis

    if args.compare:
        if len(args.compare) > 2:
            report.line("--compare: expected OLD.json and at most one NEW.json")
            return 2
        try:
            old = benchmarks.read_json(args.compare[0])
            if len(args.compare) == 2:
                new = benchmarks.read_json(args.compare[1])
            else:  # this run: refuse before spending time on it
                from .benchmarks._machine import describe

                new = describe()
            if not args.force:
                analysis.check_same_machine(old, new)
        except analysis.MachineMismatch as exc:
            report.line(f"refusing to compare: {exc}")
            return 2
        except ValueError as exc:
            report.line(str(exc))
            return 2
    if args.source:
        try:
            record = benchmarks.read_json(args.source)
        except ValueError as exc:
            report.line(str(exc))
            return 2
        status = 0
    elif args.compare and len(args.compare) == 2:
        record = new
        status = 0
    else:
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
    ran = not args.source and not (args.compare and len(args.compare) == 2)
    if args.json and ran:
        benchmarks.write_json(record, args.json)
        report.line(f"wrote {args.json}")
    if args.compare:
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
        except RuntimeError as exc:
            report.line(str(exc))
            status = status or 2
    if args.markdown:
        print(analysis.markdown(record), end="")
    return status


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
        "relu, scaleout). Exit status 1 if a module failed or --compare found a slowdown.",
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
        "--threshold", type=float, default=0.05, help="relative change below which nothing is flagged (default 0.05)"
    )
    bench.add_argument("--plot", metavar="PNG", help="draw the speed-ups against each peer (matplotlib)")
    bench.add_argument("--markdown", action="store_true", help="print the results as Markdown tables")
    bench.add_argument(
        "--from", dest="source", metavar="JSON", help="use a recorded run (for --plot, --markdown) instead of running"
    )
    args = parser.parse_args(argv)
    report = Report()
    if args.command == "demo":
        unknown = [m for m in args.modules if m not in MODULES]
        if unknown:
            parser.error(f"unknown module(s) {unknown}; expected some of {list(MODULES)}")
        return run_demo(args.modules, report)
    if args.command == "bench":
        return run_bench(args, report)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
