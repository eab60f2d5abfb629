"""The documentation builds without warnings, its examples run, and it covers every public name."""

from __future__ import annotations

import doctest
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

pytest.importorskip("sphinx", reason="the docs extra is not installed")
pytest.importorskip("numpydoc", reason="the docs extra is not installed")
pytest.importorskip("pydata_sphinx_theme", reason="the docs extra is not installed")

MODULES = ("toptwo", "cascade", "greedy", "shapes", "relu", "distributed")


def _sphinx(builder: str, out: Path, *, gallery: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("PAPERKERNELS_DOCS_INTERSPHINX", None)
    if not gallery:
        env["PAPERKERNELS_DOCS_NO_GALLERY"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder, str(DOCS), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )


def test_api_reference_lists_every_public_name():
    pages = {name: (DOCS / "api" / f"{name}.rst").read_text(encoding="utf-8") for name in MODULES}
    pages["relu"] += (DOCS / "api" / "relu-net.rst").read_text(encoding="utf-8")
    missing = []
    for name in MODULES:
        module = importlib.import_module(f"paperkernels.{name}")
        for public in module.__all__:
            if not re.search(rf"(^|[\s.:]){re.escape(public)}\b", pages[name], re.MULTILINE):
                missing.append(f"paperkernels.{name}.{public}")
    assert missing == [], f"public names missing from docs/api: {missing}"


def test_guides_and_pages_examples_run(tmp_path):
    done = _sphinx("doctest", tmp_path / "doctest", gallery=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "0 failures in tests" in (tmp_path / "doctest" / "output.txt").read_text()


def _public_objects(package: str):
    module = importlib.import_module(package)
    names = ["Limits", "set_isa", "get_isa", "supported_isas", "show_config"] if package == "paperkernels" else module.__all__
    yield package, module
    for name in names:
        obj = getattr(module, name)
        if callable(obj):
            yield f"{package}.{name}", obj


@pytest.mark.parametrize("package", ["paperkernels", "paperkernels.distributed", "paperkernels.greedy",
                                     "paperkernels.shapes"])
def test_docstring_examples_run(package):
    """The Examples of every public function, class and method run, in a fresh namespace each."""
    pytest.importorskip("matplotlib")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    seen = set()
    for name, obj in _public_objects(package):
        # module=False: take every docstring inside the object, whichever module defines it.
        for test in finder.find(obj, name, module=False, globs={}):
            if test.name not in seen:
                seen.add(test.name)
                runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"no docstring examples found in {package}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {package} failed"


def test_html_site_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed")
    pytest.importorskip("matplotlib")
    pytest.importorskip("distributed")
    done = _sphinx("html", tmp_path / "html", gallery=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    html = tmp_path / "html"
    for page in ("index.html", "guide/greedy.html", "api/generated/paperkernels.greedy.exact_weights.html",
                 "gallery/plot_shapes.html"):
        assert (html / page).is_file(), page
    # Every gallery example ran and left its figure.
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        figures = list((html / "_images").glob(f"sphx_glr_{example.stem}_*.png"))
        assert figures, f"{example.name} produced no figure"
