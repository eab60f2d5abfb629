"""Style and type checks that CI enforces (the same tools and versions as .pre-commit-config.yaml,
installed by the ``lint`` extra): ruff lint and format, clang-format, generated stubs up to date,
``mypy --strict`` on the package. Each check skips when its tool is not installed."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CPP_SUFFIXES = {".cpp", ".hpp"}


def _run(*command, **kwargs):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, **kwargs)


def _tracked_files():
    if not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    return _run("git", "ls-files").stdout.split()


def _require(tool):
    """The tool's path: from this interpreter's environment first (a venv used without activation)."""
    beside = Path(sys.executable).parent / tool
    found = str(beside) if beside.exists() else shutil.which(tool)
    if found is None:
        pytest.skip(f"needs {tool} (pip install '.[lint]')")
    return found


def test_ruff_lint():
    ruff = _require("ruff")
    done = _run(ruff, "check", ".")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_ruff_format():
    ruff = _require("ruff")
    done = _run(ruff, "format", "--check", ".")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_clang_format():
    clang_format = _require("clang-format")
    sources = [f for f in _tracked_files() if Path(f).suffix in CPP_SUFFIXES]
    assert sources
    done = _run(clang_format, "--dry-run", "--Werror", *sources)
    assert done.returncode == 0, done.stderr[-4000:]


def test_generated_stubs_are_current():
    if importlib.util.find_spec("pybind11_stubgen") is None:
        pytest.skip("needs pybind11-stubgen (pip install '.[lint]')")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = _run(sys.executable, "tools/generate_stubs.py", "--check", env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_package_is_mypy_strict_clean():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("needs mypy (pip install '.[lint]')")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), "-p", "paperkernels"],
        cwd=ROOT / "python",
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-6000:]
