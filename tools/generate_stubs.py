"""Writes the type stubs of the extension, python/paperkernels/_core/*.pyi, from the built module.

Usage (after a developer build): ``PYTHONPATH=python python tools/generate_stubs.py [--check]``.
``--check`` writes nothing and fails when the checked-in stubs differ from the extension's
(tests/test_style.py runs it). The test-only submodule ``_core.testing`` is left out: an installed
package does not have it; ``__version__`` keeps its type only (each build sets its own value).
"""

from __future__ import annotations

import argparse
import difflib
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
STUBS = ROOT / "python" / "paperkernels" / "_core"
PRIVATE_SUBMODULES = ("testing",)


def generate(out_dir: pathlib.Path) -> dict[str, str]:
    """Runs pybind11-stubgen on paperkernels._core; returns {file name: text} without the test hooks."""
    subprocess.run(
        [sys.executable, "-m", "pybind11_stubgen", "paperkernels._core", "-o", str(out_dir), "--exit-code"],
        check=True,
        capture_output=True,
        text=True,
    )
    files = {}
    for path in sorted((out_dir / "paperkernels" / "_core").glob("*.pyi")):
        if path.stem in PRIVATE_SUBMODULES:
            continue
        text = path.read_text()
        if path.name == "__init__.pyi":
            # The version is the build's (empty in a developer build): the stub states only its type.
            text = re.sub(r"^__version__: str = .*$", "__version__: str", text, flags=re.M)
            for name in PRIVATE_SUBMODULES:
                text = text.replace(f"from . import {name}\n", "")
                text = re.sub(rf", '{name}'|'{name}', ", "", text)
        files[path.name] = text
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the checked-in stubs, write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(pathlib.Path(tmp))
    if args.check:
        current = {p.name: p.read_text() for p in sorted(STUBS.glob("*.pyi"))}
        if current == fresh:
            return 0
        for name in sorted(set(current) | set(fresh)):
            diff = difflib.unified_diff(
                current.get(name, "").splitlines(True),
                fresh.get(name, "").splitlines(True),
                name,
                f"{name} (generated)",
            )
            sys.stdout.writelines(diff)
        print("stale stubs: run `python tools/generate_stubs.py`")
        return 1
    STUBS.mkdir(exist_ok=True)
    for path in STUBS.glob("*.pyi"):
        path.unlink()
    for name, text in fresh.items():
        (STUBS / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
