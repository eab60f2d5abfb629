"""The public API type-checks from user code: ``mypy --strict`` on a script that uses every module."""

import importlib.util
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import paperkernels

SCRIPT = Path(__file__).with_name("typing_user_script.py")


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="needs mypy (the lint extra)")
def test_user_script_passes_mypy_strict(tmp_path):
    package_root = Path(paperkernels.__file__).resolve().parent.parent
    env = dict(os.environ)
    installed = {Path(p).resolve() for p in site.getsitepackages() + [site.getusersitepackages()]}
    if package_root not in installed:  # a developer build in the source tree: mypy does not read PYTHONPATH
        env["MYPYPATH"] = str(package_root)
    # As a user's mypy sees an installed package: the library's own modules (and the stubs of its
    # extension) are analysed for their types but never reported on; only the script's errors count.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n[mypy-paperkernels.*]\nignore_errors = True\nfollow_imports = silent\n")
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        f"--config-file={config}",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--python-version",
        f"{sys.version_info[0]}.{sys.version_info[1]}",
        str(SCRIPT),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 1 source file" in done.stdout


# The modules whose sources pass mypy --strict on their own (imports of other modules are analysed
# for their types but not reported on).
STRICT_MODULES = ["-p", "paperkernels.greedy", "-p", "paperkernels.shapes", "-m", "paperkernels.distributed"] + [
    arg
    for name in (
        "",
        "._validation",
        "._limits",
        "._isa",
        "._optional",
        "._public",
        "._progress",
        "._report",
        "._seed",
        ".__main__",
    )
    for arg in ("-m", f"paperkernels{name}")
]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="needs mypy (the lint extra)")
def test_library_modules_pass_mypy_strict(tmp_path):
    root = Path(__file__).resolve().parent.parent
    if not (root / "python" / "paperkernels" / "__init__.py").is_file():
        pytest.skip("needs the source tree")
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--follow-imports=silent",
        f"--config-file={root / 'pyproject.toml'}",
        "--cache-dir",
        str(tmp_path / "cache"),
        *STRICT_MODULES,
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=root / "python", timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
