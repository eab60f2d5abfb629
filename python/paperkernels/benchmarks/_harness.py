"""The pieces every benchmark shares: one timer, the record of checks and measurements, BLAS limits,
the instruction sets to measure under and the one-thread dgemm rate that dense kernels are set against."""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

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
        self.samples: list[tuple[Any, ...]] = []
        self.wall_over_cpu: list[float] = []

    def run(self, fn: Callable[[], Any], units: float | Callable[[Any], float] = 1) -> Any:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = fn()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        count = units(result) if callable(units) else units
        self.add(wall if self.clock == "wall" else cpu, count, wall / max(cpu, 1e-9))
        return result

    def add(self, seconds: float, units: float = 1, wall_over_cpu: float | None = None) -> None:
        self.samples.append((max(float(seconds), 1e-12), float(units)))
        if wall_over_cpu is not None:
            self.wall_over_cpu.append(float(wall_over_cpu))

    def seconds_per_unit(self) -> list[float]:
        return [s / u for s, u in self.samples]

    def units_per_second(self) -> list[float]:
        return [u / s for s, u in self.samples]


def measure(
    fn: Callable[[], Any],
    *,
    repeat: int = 3,
    min_time: float = 0.0,
    clock: str = "wall",
    units: float = 1,
    warmup: int = 0,
) -> Timer:
    """Times ``fn`` in ``repeat`` rounds; a round repeats the call until it has lasted ``min_time``
    (at least one call) and gives one sample: the round's time over the work done (calls x units).
    ``warmup`` untimed calls come first (first-touch page faults of large fresh copies, for one)."""
    for _ in range(warmup):
        fn()
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


def _spread(values: Sequence[float]) -> dict[str, float]:
    values = [float(v) for v in values]
    return {"min": min(values), "median": float(statistics.median(values)), "max": max(values), "repeats": len(values)}


def dgemm_flops(m: int, k: int, n: int) -> float:
    """Floating-point operations of an (m x k) by (k x n) matrix product: a multiply and an add per term."""
    return 2.0 * m * k * n


def dgemm_timer(m: int, k: int, n: int, *, repeat: int = 3, min_time: float = 0.05, seed: int = 0) -> Timer:
    """The machine's one-thread dgemm on an (m x k) by (k x n) product: numpy's matmul with BLAS limited
    to one thread, timed by CPU time, in GFLOP (units) per second. The two factors are distinct arrays
    (``A.T @ A`` would let numpy call the half-cost symmetric rank-k update instead)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k))
    b = rng.standard_normal((k, n))
    with blas_threads(1):
        a @ b  # warm-up (BLAS buffers)
        return measure(lambda: a @ b, repeat=repeat, min_time=min_time, clock="cpu", units=dgemm_flops(m, k, n) / 1e9)


DGEMM = "numpy matmul (dgemm, 1 BLAS thread)"


class Recorder:
    """What one module's benchmark found: agreement checks, measurements, notes; printed as it goes."""

    def __init__(self, module: str, quick: bool, isa: str, report: Report | None = None) -> None:
        self.module = module
        self.quick = quick
        self.isa = isa
        self.report = report if report is not None else Report()
        self.checks: list[dict[str, Any]] = []
        self.measurements: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.skipped: list[dict[str, str]] = []

    # -- instruction sets -------------------------------------------------------------------------
    @contextlib.contextmanager
    def using_isa(self, isa: str) -> Iterator[str]:
        """Inside, every SIMD kernel runs under ``isa`` (:func:`paperkernels.set_isa`) and the
        measurements recorded carry it; both are restored on exit."""
        from .._isa import set_isa

        previous = self.isa
        with set_isa(isa) as chosen:
            self.isa = chosen
            try:
                yield chosen
            finally:
                self.isa = previous

    def each_isa(self) -> Iterator[str]:
        """Every instruction set this CPU supports (:func:`paperkernels.supported_isas`, widest
        first), each in use in turn for the body of the loop: one row per instruction set."""
        from .._isa import supported_isas

        for isa in supported_isas():
            with self.using_isa(isa):
                yield isa

    def dgemm(
        self, workload: str, m: int, k: int, n: int, *, repeat: int = 3, min_time: float = 0.05
    ) -> dict[str, Any]:
        """Records the one-thread dgemm rate of an (m x k) by (k x n) product (see :func:`dgemm_timer`)
        as the reference of a dense kernel's ``"arithmetic rate"`` rows in ``workload``: the
        speed-up table then shows the kernel's distance to the machine's limit."""
        return self.rate(
            workload,
            DGEMM,
            dgemm_timer(m, k, n, repeat=repeat, min_time=min_time),
            unit="GFLOP/s",
            metric="arithmetic rate",
            threads=1,
            peer=True,
            detail=f"{m} x {k} by {k} x {n}, 2mkn operations",
        )

    # -- output ---------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        """A line of context worth keeping with the data (sizes, what a contender is)."""
        self.notes.append(text)
        self.report.line(text)

    def skip(self, peer: str, reason: str, hint: str = "") -> None:
        """A peer that could not run; ``hint`` says in one line how to add it."""
        self.skipped.append({"peer": peer, "reason": reason, "hint": hint})
        self.report.line(f"{peer} skipped: {reason}" + (f" ({hint})" if hint else ""))

    def check(
        self,
        workload: str,
        compared: str,
        quantity: str,
        value: float,
        tolerance: float,
        passed: bool | None = None,
        detail: str = "",
    ) -> str:
        """Records an agreement check (``value <= tolerance`` passes unless ``passed`` says) and raises
        :class:`CheckFailed` when it fails. Returns its id."""
        value = float(value)
        ok = bool(value <= tolerance) if passed is None else bool(passed)
        identifier = f"{self.module}/{len(self.checks) + 1}"
        self.checks.append(
            {
                "id": identifier,
                "module": self.module,
                "workload": workload,
                "compared": compared,
                "quantity": quantity,
                "value": value,
                "tolerance": float(tolerance),
                "passed": ok,
                "detail": detail,
            }
        )
        self.report.line(
            f"check [{workload}] {compared}: {quantity} = {value:.3g} (tolerance {tolerance:.3g}) "
            f"{'ok' if ok else 'FAILED'}{'; ' + detail if detail else ''}"
        )
        if not ok:
            raise CheckFailed(f"{workload}: {compared}: {quantity} = {value:.6g} above {tolerance:.6g}")
        return identifier

    def record(
        self,
        workload: str,
        contender: str,
        metric: str,
        unit: str,
        samples: Sequence[float],
        *,
        better: str | None,
        threads: int,
        peer: bool = False,
        clock: str | None = None,
        checks: list[str] | None = None,
        detail: str = "",
    ) -> dict[str, Any]:
        """One measurement. ``value`` is the best sample (the lowest for ``better="lower"``, the
        highest for ``"higher"``, the median otherwise); the spread keeps min/median/max."""
        if not samples:
            raise ValueError("samples: expected at least one value")
        spread = _spread(samples)
        value = spread["min"] if better == "lower" else spread["max"] if better == "higher" else spread["median"]
        if checks is None:
            checks = [c["id"] for c in self.checks if c["workload"] in (workload, "*")]
        entry = {
            "module": self.module,
            "workload": workload,
            "contender": contender,
            "role": "peer" if peer else "paperkernels",
            "metric": metric,
            "value": value,
            "unit": unit,
            "better": better,
            "spread": spread,
            "threads": int(threads),
            "isa": self.isa,
            "clock": clock,
            "checks": checks,
            "detail": detail,
        }
        self.measurements.append(entry)
        return entry

    def time(
        self,
        workload: str,
        contender: str,
        timer: Timer,
        *,
        unit: str = "ms",
        scale: float = 1e3,
        metric: str = "time per call",
        **kwargs: Any,
    ) -> dict[str, Any]:
        """A time per unit of work (lower is better), in ``unit`` (seconds times ``scale``)."""
        return self.record(
            workload,
            contender,
            metric,
            unit,
            [v * scale for v in timer.seconds_per_unit()],
            better="lower",
            clock=timer.clock,
            **kwargs,
        )

    def rate(
        self, workload: str, contender: str, timer: Timer, *, unit: str, metric: str = "throughput", **kwargs: Any
    ) -> dict[str, Any]:
        """Work per second (higher is better)."""
        return self.record(
            workload, contender, metric, unit, timer.units_per_second(), better="higher", clock=timer.clock, **kwargs
        )
