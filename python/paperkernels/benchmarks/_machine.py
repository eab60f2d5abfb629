"""Where a benchmark ran: CPU, cores, memory, OS, the extension's build, library versions."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from .._validation import available_cores

# Every library a benchmark compares against or leans on (distribution names).
PEERS = (
    "scikit-learn",
    "threadpoolctl",
    "mahotas",
    "xshapeenc",
    "shapely",
    "highspy",
    "best-arm",
    "scipy",
    "dask",
    "distributed",
    "matplotlib",
)


def _cpuinfo() -> dict[str, str]:
    """The first processor's block of /proc/cpuinfo (Linux), else empty."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    info: dict[str, str] = {}
    for line in text.split("\n\n")[0].splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    return info


def cpu_description() -> dict[str, Any]:
    info = _cpuinfo()
    model = info.get("model name") or platform.processor() or platform.machine()
    if sys.platform == "darwin" and not info:
        try:
            model = (
                subprocess.run(
                    ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5
                ).stdout.strip()
                or model
            )
        except (OSError, subprocess.SubprocessError):
            pass
    flags = sorted(set((info.get("flags") or info.get("Features") or "").split()))
    return {
        "model": model,
        "vendor": info.get("vendor_id"),
        "family": info.get("cpu family"),
        "model_number": info.get("model"),
        "machine": platform.machine(),
        "flags": flags,
    }


def isa_from_flags(flags: list[str]) -> str:
    """The vector variant the kernels pick, from CPU flags: "avx512", "avx2" or "sse2" (x86-64)."""
    names = set(flags)
    if "avx512f" in names:
        return "avx512"
    if "avx2" in names:
        return "avx2"
    if platform.machine().lower() in ("x86_64", "amd64"):
        return "sse2"
    return "baseline"


def build_info() -> dict[str, Any]:
    """The extension's own record of its build (compiler, flags, picked ISA) when it exposes one."""
    try:
        from .. import _core
    except ImportError as exc:
        return {"error": f"extension not importable: {exc}"}
    getter = getattr(_core, "build_info", None)
    info = dict(getter()) if getter is not None else {}
    info["extension"] = getattr(_core, "__file__", None)
    return info


def isa() -> str:
    info = build_info()
    return str(info.get("isa") or isa_from_flags(cpu_description()["flags"]))


def memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _version(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def git_commit() -> dict[str, Any]:
    """The commit of the source checkout this package is imported from, when it is one."""
    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists():
        return {"commit": None, "dirty": None}
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            or None
        )
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return {"commit": commit, "dirty": bool(status)}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def _commit(build: dict[str, Any]) -> dict[str, Any]:
    """The checkout's commit when running from one, else the one the extension was built from."""
    found = git_commit()
    if found["commit"] is None and build.get("git_commit"):
        return {"commit": build["git_commit"], "dirty": None, "source": "build"}
    return {**found, "source": "checkout" if found["commit"] else None}


def fingerprint(machine: dict[str, Any]) -> str:
    """What must match for two runs to be compared: CPU model, core count, memory (GiB), OS kind."""
    cpu = machine.get("cpu", {})
    memory = machine.get("memory_bytes") or 0
    key = "|".join(
        str(x)
        for x in (
            cpu.get("model"),
            cpu.get("machine"),
            machine.get("cores", {}).get("logical"),
            round(memory / 2**30),
            machine.get("os", {}).get("system"),
        )
    )
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def describe() -> dict[str, Any]:
    """The file-level metadata of a benchmark record."""
    import numpy as np

    from .. import __version__

    cpu = cpu_description()
    build = build_info()
    machine = {
        "hostname": platform.node(),
        "cpu": cpu,
        "cores": {"logical": os.cpu_count(), "available": available_cores()},
        "memory_bytes": memory_bytes(),
        "os": {"system": platform.system(), "release": platform.release(), "platform": platform.platform()},
    }
    machine["fingerprint"] = fingerprint(machine)
    blas = None
    try:
        from threadpoolctl import threadpool_info

        blas = [{k: pool.get(k) for k in ("internal_api", "version", "num_threads")} for pool in threadpool_info()]
    except Exception:  # threadpoolctl missing or unable to inspect a library
        pass
    return {
        "machine": machine,
        "build": build,
        "isa": str(build.get("isa") or isa_from_flags(cpu["flags"])),
        "software": {
            "paperkernels": __version__,
            "git": _commit(build),
            "python": sys.version.split()[0],
            "python_implementation": platform.python_implementation(),
            "numpy": np.__version__,
            "blas": blas,
            "peers": {name: _version(name) for name in PEERS},
        },
    }
