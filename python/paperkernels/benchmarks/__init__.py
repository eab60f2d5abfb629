"""Benchmarks of paperkernels against peer libraries and plain numpy references.

One module per library module (``toptwo``, ``cascade``, ``greedy``, ``shapes``, ``relu``) plus
``scaleout`` (the Dask batch APIs). Each checks first that paperkernels and the peer agree on the
same inputs, then times both in the same process, and records every check and measurement.

Run them with ``python -m paperkernels bench [module ...] [--quick] [--json PATH]``; from Python,
:func:`run` returns the same record that ``--json`` writes (its format: ``schema.json`` here).
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import stat
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._report import Report
from ._harness import CheckFailed, Recorder

BENCHMARKS = ("toptwo", "cascade", "greedy", "shapes", "relu", "scaleout")
FORMAT = "paperkernels-bench"
FORMAT_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("schema.json")


def load_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return schema


def run(
    modules: Sequence[str] = (), quick: bool = False, report: Report | None = None, command: Sequence[str] | None = None
) -> dict[str, Any]:
    """Runs the benchmarks of ``modules`` (default: all) and returns the record.

    A module whose check fails or that raises is marked ``"failed"`` (with the error) and the
    others still run; see :func:`failed_modules`.
    """
    from ._machine import describe

    report = report if report is not None else Report()
    names = list(modules) or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise ValueError(f"modules: unknown benchmark(s) {unknown}; expected some of {list(BENCHMARKS)}")
    meta = describe()
    record: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": bool(quick),
        "command": list(command) if command is not None else list(sys.argv),
        **meta,
        "modules": {},
        "checks": [],
        "measurements": [],
        "skipped": [],
    }
    try:  # the instruction sets measurements may carry (one row per instruction set)
        from .._isa import supported_isas

        record["supported_isas"] = supported_isas()
    except ImportError:
        pass
    cpu = meta["machine"]["cpu"]["model"]
    cores = meta["machine"]["cores"]["available"]
    report.line(
        f"paperkernels {meta['software']['paperkernels']} benchmarks on {cpu}, {cores} core(s), "
        f"ISA {meta['isa']}{' (quick sizes)' if quick else ''}"
    )
    record["load_average"] = {"start": _load(), "end": None}
    for name in names:
        report.heading(f"bench {name}")
        rec = Recorder(name, quick, meta["isa"], report)
        start = time.perf_counter()
        status, error = "ok", None
        try:
            importlib.import_module(f"{__name__}.{name}").run(rec)
        except CheckFailed as exc:
            status, error = "failed", f"agreement check failed: {exc}"
        except Exception as exc:  # reported, and the other modules still run
            status = "failed"
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            report.line("".join(traceback.format_exc()).rstrip().replace("\n", "\n  "))
        if status == "ok" and not rec.measurements and rec.skipped:
            status = "skipped"
        seconds = time.perf_counter() - start
        record["modules"][name] = {"status": status, "error": error, "seconds": round(seconds, 3), "notes": rec.notes}
        record["checks"].extend(rec.checks)
        record["measurements"].extend(rec.measurements)
        record["skipped"].extend({"module": name, **s} for s in rec.skipped)
        print_measurements(rec.measurements, report)
        report.line(f"[{name}: {status}{': ' + error if error else ''}; {seconds:.1f} s]")
    record["load_average"]["end"] = _load()
    return record


def _load() -> list[float] | None:
    """The system's 1, 5 and 15 minute load averages (other work competing for the cores)."""
    try:
        import os

        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def failed_modules(record: dict[str, Any]) -> list[str]:
    return [name for name, entry in record["modules"].items() if entry["status"] == "failed"]


def _number(value: float) -> str:
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{value:.3g}"


def print_measurements(measurements: Sequence[dict[str, Any]], report: Report) -> None:
    from .analysis import speedups

    if not measurements:
        return
    rows = []
    for m in measurements:
        s = m["spread"]
        rows.append(
            [
                m["workload"],
                m["contender"],
                m["threads"],
                m["isa"] if m["role"] == "paperkernels" else "-",
                m["metric"],
                f"{_number(m['value'])} {m['unit']}",
                f"{_number(s['min'])}..{_number(s['max'])}" if s["repeats"] > 1 else "-",
            ]
        )
    report.table(["workload", "contender", "threads", "isa", "metric", "value", "spread"], rows)
    pairs = speedups(measurements)
    if pairs:
        report.table(
            ["workload", "threads", "isa", "against", "speed-up"],
            [[p["workload"], p["threads"], p["isa"], p["peer"], f"{p['speedup']:,.3g}x"] for p in pairs],
        )


def write_json(record: dict[str, Any], path: str) -> None:
    """Writes the record to ``path``, in place: a file, a device or ``/dev/stdout``. A named pipe
    must have its reader when the record is written; without one this raises (ENXIO) instead of
    waiting for a reader that may never come."""
    text = json.dumps(record, indent=1, sort_keys=False) + "\n"
    try:
        status = os.stat(path)
    except OSError:
        status = None
    stream = standard_stream(status)
    if stream is not None:  # /dev/stdout and the like: after what was printed, not over it
        stream.write(text)
        stream.flush()
        return
    fifo = status is not None and stat.S_ISFIFO(status.st_mode)
    if not fifo:
        Path(path).write_text(text)
        return
    handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    os.set_blocking(handle, True)
    with os.fdopen(handle, "w") as out:
        out.write(text)


def standard_stream(status: os.stat_result | None) -> Any:
    """sys.stdout or sys.stderr if the file with this status is where it writes, else None."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if status is not None and os.path.samestat(status, os.fstat(stream.fileno())):
                return stream
        except (AttributeError, OSError, ValueError):  # replaced streams without a file descriptor
            continue
    return None


def read_json(path: str) -> dict[str, Any]:
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable benchmark record ({exc})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f'{path}: not a paperkernels benchmark record (no "format": "{FORMAT}")')
    return record


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _small_validate(value: Any, schema: dict[str, Any], where: str, errors: list[str]) -> None:
    """The subset of JSON Schema that schema.json uses: type, const, enum, required, properties,
    additionalProperties, items, minimum."""
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: expected {schema['const']!r}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: expected one of {schema['enum']!r}, got {value!r}")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]

        def fits(kind: str) -> bool:
            if kind == "integer":
                return isinstance(value, int) and not isinstance(value, bool)
            if kind == "number":
                return isinstance(value, (int, float)) and not isinstance(value, bool)
            return isinstance(value, _TYPES[kind])

        if not any(fits(k) for k in kinds):
            errors.append(f"{where}: expected {' or '.join(kinds)}, got {type(value).__name__}")
            return
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errors.append(f"{where}: {value!r} below the minimum {schema['minimum']!r}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{where}: missing {name!r}")
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                _small_validate(item, properties[name], f"{where}.{name}", errors)
            elif isinstance(schema.get("additionalProperties"), dict):
                _small_validate(item, schema["additionalProperties"], f"{where}.{name}", errors)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _small_validate(item, schema["items"], f"{where}[{i}]", errors)


def validate(record: dict[str, Any]) -> list[str]:
    """Problems of ``record`` against schema.json (empty when it conforms): with jsonschema when it
    is installed, else with a small validator of the same rules."""
    schema = load_schema()
    try:
        import jsonschema
    except ImportError:
        errors: list[str] = []
        _small_validate(record, schema, "record", errors)
        return errors
    validator = jsonschema.Draft202012Validator(schema)
    return [f"record.{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(record)]
