"""The pieces every benchmark shares: one timer, the record of checks and measurements, BLAS limits."""

from __future__ import annotations

import contextlib
import statistics
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .._report import Report


class CheckFailed(AssertionError):
    """An agreement check failed: the benchmark of that module stops before (or without) timing."""


class Timer:
    """The one stopwatch of the benchmarks.

    Each :meth:`run` times one call of ``fn`` by wall time and by this process's CPU time and keeps a
    sample ``(seconds, units)`` by the timer's clock: ``"wall"`` for multi-threaded and
    multi-process work, ``"cpu"`` for single-threaded work (CPU time is the single-core cost even when
    other processes share the machine). ``units`` counts the work in the call (rounds, pulls,
    shapes...) or is a function of the call's result.
    """

    def __init__(self, clock: str = "wall") -> None:
        if clock not in ("wall", "cpu"):
            raise ValueError(f"clock: expected 'wall' or 'cpu', got {clock!r}")
        self.clock = clock
        self.samples: List[Tuple[Any, ...]] = []
        self.wall_over_cpu: List[float] = []

    def run(self, fn: Callable[[], Any], units: Union[float, Callable[[Any], float]] = 1) -> Any:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = fn()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        count = units(result) if callable(units) else units
        self.add(wall if self.clock == "wall" else cpu, count, wall / max(cpu, 1e-9))
        return result

    def add(self, seconds: float, units: float = 1, wall_over_cpu: Optional[float] = None) -> None:
        self.samples.append((max(float(seconds), 1e-12), float(units)))
        if wall_over_cpu is not None:
            self.wall_over_cpu.append(float(wall_over_cpu))

    def seconds_per_unit(self) -> List[float]:
        return [s / u for s, u in self.samples]

    def units_per_second(self) -> List[float]:
        return [u / s for s, u in self.samples]


def measure(fn: Callable[[], Any], *, repeat: int = 3, min_time: float = 0.0, clock: str = "wall",
            units: float = 1) -> Timer:
    """Times ``fn`` in ``repeat`` rounds; a round repeats the call until it has lasted ``min_time``
    (at least one call) and gives one sample: the round's time over the work done (calls x units)."""
    timer = Timer(clock)
    for _ in range(repeat):
        calls = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        while True:
            fn()
            calls += 1
            wall = time.perf_counter() - wall0
            if wall >= min_time:
                break
        cpu = time.process_time() - cpu0
        timer.add(wall if clock == "wall" else cpu, calls * units, wall / max(cpu, 1e-9))
    return timer


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Limits numpy's BLAS (and OpenMP) pools to ``n`` threads while inside (needs threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=n):
        yield


def _spread(values: Sequence[float]) -> Dict[str, float]:
    values = [float(v) for v in values]
    return {"min": min(values), "median": float(statistics.median(values)), "max": max(values),
            "repeats": len(values)}


class Recorder:
    """What one module's benchmark found: agreement checks, measurements, notes; printed as it goes."""

    def __init__(self, module: str, quick: bool, isa: str, report: Optional[Report] = None) -> None:
        self.module = module
        self.quick = quick
        self.isa = isa
        self.report = report if report is not None else Report()
        self.checks: List[Dict[str, Any]] = []
        self.measurements: List[Dict[str, Any]] = []
        self.notes: List[str] = []
        self.skipped: List[Dict[str, str]] = []

    # -- output ---------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        """A line of context worth keeping with the data (sizes, what a contender is)."""
        self.notes.append(text)
        self.report.line(text)

    def skip(self, peer: str, reason: str, hint: str = "") -> None:
        """A peer that could not run; ``hint`` says in one line how to add it."""
        self.skipped.append({"peer": peer, "reason": reason, "hint": hint})
        self.report.line(f"{peer} skipped: {reason}" + (f" ({hint})" if hint else ""))

    def check(self, workload: str, compared: str, quantity: str, value: float, tolerance: float,
              passed: Optional[bool] = None, detail: str = "") -> str:
        """Records an agreement check (``value <= tolerance`` passes unless ``passed`` says) and raises
        :class:`CheckFailed` when it fails. Returns its id."""
        value = float(value)
        ok = bool(value <= tolerance) if passed is None else bool(passed)
        identifier = f"{self.module}/{len(self.checks) + 1}"
        self.checks.append({"id": identifier, "module": self.module, "workload": workload, "compared": compared,
                            "quantity": quantity, "value": value, "tolerance": float(tolerance), "passed": ok,
                            "detail": detail})
        self.report.line(f"check [{workload}] {compared}: {quantity} = {value:.3g} (tolerance {tolerance:.3g}) "
                         f"{'ok' if ok else 'FAILED'}{'; ' + detail if detail else ''}")
        if not ok:
            raise CheckFailed(f"{workload}: {compared}: {quantity} = {value:.6g} above {tolerance:.6g}")
        return identifier

    def record(self, workload: str, contender: str, metric: str, unit: str, samples: Sequence[float], *,
               better: Optional[str], threads: int, peer: bool = False, clock: Optional[str] = None,
               checks: Optional[List[str]] = None, detail: str = "") -> Dict[str, Any]:
        """One measurement. ``value`` is the best sample (the lowest for ``better="lower"``, the
        highest for ``"higher"``, the median otherwise); the spread keeps min/median/max."""
        if not samples:
            raise ValueError("samples: expected at least one value")
        spread = _spread(samples)
        value = spread["min"] if better == "lower" else spread["max"] if better == "higher" else spread["median"]
        if checks is None:
            checks = [c["id"] for c in self.checks if c["workload"] in (workload, "*")]
        entry = {"module": self.module, "workload": workload, "contender": contender,
                 "role": "peer" if peer else "paperkernels", "metric": metric, "value": value, "unit": unit,
                 "better": better, "spread": spread, "threads": int(threads), "isa": self.isa,
                 "clock": clock, "checks": checks, "detail": detail}
        self.measurements.append(entry)
        return entry

    def time(self, workload: str, contender: str, timer: Timer, *, unit: str = "ms", scale: float = 1e3,
             metric: str = "time per call", **kwargs: Any) -> Dict[str, Any]:
        """A time per unit of work (lower is better), in ``unit`` (seconds times ``scale``)."""
        return self.record(workload, contender, metric, unit, [v * scale for v in timer.seconds_per_unit()],
                           better="lower", clock=timer.clock, **kwargs)

    def rate(self, workload: str, contender: str, timer: Timer, *, unit: str, metric: str = "throughput",
             **kwargs: Any) -> Dict[str, Any]:
        """Work per second (higher is better)."""
        return self.record(workload, contender, metric, unit, timer.units_per_second(), better="higher",
                           clock=timer.clock, **kwargs)
