"""Command line: ``python -m paperkernels demo | bench [module ...] | --version``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import runpy
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

from . import MODULES, __version__, available_modules
from ._report import Report


def _demo_modules() -> List[str]:
    names = []
    for name in available_modules():
        if importlib.util.find_spec(f"paperkernels._demos.{name}") is not None:
            names.append(name)
    return names


def run_demo(modules: Sequence[str], report: Report) -> int:
    names = list(modules) or _demo_modules()
    report.line(f"paperkernels {__version__} demo: {', '.join(names) if names else 'no modules built yet'}")
    for name in names:
        demo = importlib.import_module(f"paperkernels._demos.{name}")
        report.heading(f"paperkernels.{name}")
        start = time.perf_counter()
        demo.run(report)
        report.line(f"[{name}: {time.perf_counter() - start:.2f} s]")
    return 0


def _bench_dir() -> Optional[Path]:
    candidates = []
    if os.environ.get("PAPERKERNELS_BENCH_DIR"):
        candidates.append(Path(os.environ["PAPERKERNELS_BENCH_DIR"]))
    candidates.append(Path.cwd() / "bench")
    candidates.append(Path(__file__).resolve().parents[2] / "bench")  # a source checkout
    for path in candidates:
        if path.is_dir() and any(path.glob("bench_*.py")):
            return path
    return None


def run_bench(modules: Sequence[str], report: Report, quick: bool) -> int:
    directory = _bench_dir()
    if directory is None:
        report.line("no bench/ directory found: run from the source checkout or set PAPERKERNELS_BENCH_DIR")
        return 2
    names = list(modules) or [p.stem[len("bench_"):] for p in sorted(directory.glob("bench_*.py"))]
    status = 0
    for name in names:
        script = directory / f"bench_{name}.py"
        if not script.exists():
            report.line(f"no benchmark for {name!r} ({script} does not exist)")
            status = 2
            continue
        report.heading(f"bench {name}")
        argv = sys.argv
        try:
            sys.argv = [str(script)] + (["--quick"] if quick else [])
            runpy.run_path(str(script), run_name="__main__")
        finally:
            sys.argv = argv
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperkernels", description=__doc__)
    parser.add_argument("--version", action="version", version=f"paperkernels {__version__}")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="run every module on small built-in examples")
    demo.add_argument("modules", nargs="*", metavar="module")
    bench = sub.add_parser("bench", help="run the comparison benchmarks in bench/")
    bench.add_argument("modules", nargs="*", metavar="module")
    bench.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args(argv)
    report = Report()
    if args.command == "demo":
        unknown = [m for m in args.modules if m not in MODULES]
        if unknown:
            parser.error(f"unknown module(s) {unknown}; expected some of {list(MODULES)}")
        return run_demo(args.modules, report)
    if args.command == "bench":
        return run_bench(args.modules, report, args.quick)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
