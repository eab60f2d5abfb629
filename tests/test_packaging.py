"""Release checks: the sdist and the wheel build, pass ``twine check``, carry the LICENSE, and the
wheel's shared libraries are what auditwheel expects; the wheel-building configuration selects the
platforms we ship.

The sdist checks take seconds. Building the wheel compiles the extension (minutes on two cores),
so it runs only when ``PAPERKERNELS_TEST_WHEEL=1``; the C++ front-end check with GCC and clang
only when ``PAPERKERNELS_TEST_COMPILERS=1``. Each check is skipped when its tool (``build``,
``twine``, ``auditwheel``, ``cibuildwheel``, the compiler) is not installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _module_available(name: str) -> bool:
    import importlib.util

    # A directory of that name in the working directory (the source tree's build/) is found as a
    # namespace package, which has no origin: only a real module counts.
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin is not None


needs_build = pytest.mark.skipif(not _module_available("build"), reason="needs the 'build' package")
needs_twine = pytest.mark.skipif(not _module_available("twine"), reason="needs twine")


def _run(*args: str, cwd: Path = ROOT, timeout: float = 1800) -> subprocess.CompletedProcess:
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _version() -> str:
    namespace: dict = {}
    exec((ROOT / "python" / "paperkernels" / "_version.py").read_text(encoding="utf-8"), namespace)
    return namespace["__version__"]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    if not _module_available("build"):
        pytest.skip("needs the 'build' package")
    out = tmp_path_factory.mktemp("sdist")
    _run(sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT), timeout=600)
    (found,) = out.glob("paperkernels-*.tar.gz")
    return found


@needs_build
def test_sdist_carries_license_sources_and_version(sdist):
    assert sdist.name == f"paperkernels-{_version()}.tar.gz"
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for required in (
        "LICENSE",
        "CHANGELOG.md",
        "pyproject.toml",
        "CMakeLists.txt",
        "python/paperkernels/__init__.py",
        "python/paperkernels/_version.py",
    ):
        assert required in names, required
    assert any(name.startswith("cpp/include/paperkernels/") for name in names)
    assert any(name.startswith("cpp/bind/") for name in names)


@needs_build
@needs_twine
def test_sdist_passes_twine_check(sdist):
    _run(sys.executable, "-m", "twine", "check", "--strict", str(sdist))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if os.environ.get("PAPERKERNELS_TEST_WHEEL") != "1":
        pytest.skip("building the wheel compiles the extension: set PAPERKERNELS_TEST_WHEEL=1")
    if not _module_available("build"):
        pytest.skip("needs the 'build' package")
    out = tmp_path_factory.mktemp("wheel")
    # From the source tree, so that a previous build of the same checkout is reused.
    _run(sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT))
    (found,) = out.glob("paperkernels-*.whl")
    return found


def test_wheel_carries_license_metadata_and_extension(wheel):
    assert wheel.name.startswith(f"paperkernels-{_version()}-")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names), names
    assert any(n.startswith("paperkernels/_core") and n.endswith((".so", ".pyd")) for n in names)
    assert "paperkernels/py.typed" in names
    assert not any(n.endswith(".cpp") for n in names)
    assert f"Version: {_version()}" in metadata
    assert "License" in metadata


@needs_twine
def test_wheel_passes_twine_check(wheel):
    _run(sys.executable, "-m", "twine", "check", "--strict", str(wheel))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auditwheel inspects Linux wheels")
def test_wheel_is_consistent_with_a_manylinux_tag(wheel):
    if shutil.which("auditwheel") is None and not _module_available("auditwheel"):
        pytest.skip("needs auditwheel")
    done = _run(sys.executable, "-m", "auditwheel", "show", str(wheel))
    text = " ".join(done.stdout.split())
    # A wheel built here carries the platform tag linux_*; auditwheel must find it consistent with a
    # manylinux policy (the cibuildwheel images then repair it to that tag).
    assert "consistent with the following platform tag" in text and "manylinux_" in text, done.stdout


def test_cibuildwheel_selects_the_shipped_platforms():
    if shutil.which("cibuildwheel") is None:
        pytest.skip("needs cibuildwheel")
    identifiers = {}
    for platform in ("linux", "macos"):
        done = _run("cibuildwheel", "--print-build-identifiers", "--platform", platform, timeout=120)
        identifiers[platform] = set(done.stdout.split())
    for tag in ("manylinux_x86_64", "manylinux_aarch64", "musllinux_x86_64", "musllinux_aarch64"):
        assert f"cp312-{tag}" in identifiers["linux"], tag
    assert {"cp312-macosx_x86_64", "cp312-macosx_arm64"} <= identifiers["macos"]
    assert not any("i686" in ident for ident in identifiers["linux"])


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_cpp_compiles_without_warnings(compiler):
    """Every translation unit passes the front end of GCC and clang with -Wall -Wextra -Werror.

    Opt-in (``PAPERKERNELS_TEST_COMPILERS=1``, about a minute per compiler): it needs the compiler
    and pybind11's headers (``pip install pybind11``; clang from the system's packages).
    """
    if os.environ.get("PAPERKERNELS_TEST_COMPILERS") != "1":
        pytest.skip("set PAPERKERNELS_TEST_COMPILERS=1 to compile the C++ with GCC and clang")
    if shutil.which(compiler) is None:
        pytest.skip(f"needs {compiler}")
    pybind11 = pytest.importorskip("pybind11")
    import sysconfig

    flags = [
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-ffp-contract=off",
        "-I",
        str(ROOT / "cpp" / "include"),
        "-isystem",
        sysconfig.get_paths()["include"],
        "-isystem",
        pybind11.get_include(),
    ]
    failures = []
    for source in sorted((ROOT / "cpp" / "bind").glob("*.cpp")):
        done = subprocess.run([compiler, *flags, str(source)], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            failures.append(f"{source.name}:\n{done.stderr[-2000:]}")
    assert not failures, "\n".join(failures)
