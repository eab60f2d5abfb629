#!/usr/bin/env python3
"""Regenerates the benchmark tables of the documentation from one recorded run.

    python -m paperkernels bench --json run.json                  # on the machine to describe
    python tools/render_bench.py run.json [docs/benchmarks.md]     # rewrite every bench:<module> block
    python tools/render_bench.py run.json --check                  # exit 1 if the page is not up to date

Each module's block sits between ``<!-- bench:<module>:begin ... -->`` and ``<!-- bench:<module>:end -->``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paperkernels.benchmarks import read_json, validate
from paperkernels.benchmarks.analysis import render_tables


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", help="a JSON file written by `python -m paperkernels bench --json`")
    parser.add_argument(
        "page",
        nargs="?",
        default=str(Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"),
        help="the Markdown page holding the bench:<module> blocks (default: docs/benchmarks.md)",
    )
    parser.add_argument("--check", action="store_true", help="only report whether the page is up to date")
    args = parser.parse_args(argv)
    record = read_json(args.record)
    problems = validate(record)
    if problems:
        print(f"{args.record} does not match the schema:\n  " + "\n  ".join(problems[:20]), file=sys.stderr)
        return 2
    if record.get("quick"):
        print(f"{args.record} is a --quick run: its sizes are not the documented ones", file=sys.stderr)
        return 2
    path = Path(args.page)
    text = path.read_text()
    updated, done = render_tables(record, text)
    if not done:
        print(f"{path}: no bench:<module> blocks found", file=sys.stderr)
        return 2
    if args.check:
        if updated != text:
            print(f"{path}: benchmark tables differ from {args.record}", file=sys.stderr)
            return 1
        print(f"{path}: up to date ({', '.join(done)})")
        return 0
    path.write_text(updated)
    print(f"{path}: rewrote {', '.join(done)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
