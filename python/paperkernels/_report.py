"""A tiny plain-text report used by the demo and the benchmarks."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO


class Report:
    """Collects indented lines and aligned tables and prints them as it goes."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout

    def heading(self, text: str) -> None:
        print(f"\n== {text} ==", file=self.stream, flush=True)

    def line(self, text: str = "") -> None:
        print(f"  {text}" if text else "", file=self.stream, flush=True)

    def figure(self, label: str, value: Any, unit: str = "") -> None:
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        print(f"  {label:<44} {shown}{(' ' + unit) if unit else ''}", file=self.stream, flush=True)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        cells: list[list[str]] = [list(map(str, header))]
        for row in rows:
            cells.append([f"{v:.4g}" if isinstance(v, float) else str(v) for v in row])
        widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
        for k, row in enumerate(cells):
            print("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=False)), file=self.stream)
            if k == 0:
                print("  " + "  ".join("-" * w for w in widths), file=self.stream)
        self.stream.flush()


def best_time(fn: Callable[[], object], repeat: int = 3, min_time: float = 0.2) -> float:
    """Best wall time of one call of ``fn`` over ``repeat`` rounds, each at least ``min_time`` long."""
    best = float("inf")
    for _ in range(repeat):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        best = min(best, elapsed / calls)
    return best
