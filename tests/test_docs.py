"""The documentation builds without warnings, its examples run, and it covers every public name."""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import re
import shutil
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
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
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


# Pages whose examples must run under the doctest builder (every user guide among them).
PAGES_WITH_EXAMPLES = (
    "getting-started",
    "robustness",
    "scale-out",
    *(f"guide/{name}" for name in MODULES if name != "distributed"),
)


def test_guides_and_pages_examples_run(tmp_path):
    done = _sphinx("doctest", tmp_path / "doctest", gallery=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report = (tmp_path / "doctest" / "output.txt").read_text()
    assert "0 failures in tests" in report and "0 failures in setup code" in report, report[-4000:]
    # Every guide's examples ran: each page is reported with at least one passed test.
    ran = dict(re.findall(r"^Document: (\S+)\n-+\n1 items passed all tests:\n\s*(\d+) tests", report, re.M))
    for page in PAGES_WITH_EXAMPLES:
        assert int(ran.get(page, 0)) > 0, f"no example of docs/{page} ran:\n{report[-4000:]}"


def _code_blocks(page: Path, fence: str):
    return re.findall(rf"^```{re.escape(fence)}\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_scale_out_cluster_example_runs(tmp_path):
    """The Dask example of the scale-out page (a script with a __main__ guard) runs on a local cluster."""
    pytest.importorskip("distributed")
    if os.environ.get("PAPERKERNELS_SANITIZED"):
        pytest.skip("dask workers are separate processes, not run under the sanitizers")
    blocks = [b for b in _code_blocks(DOCS / "scale-out.md", "{code-block} python") if "LocalCluster" in b]
    assert len(blocks) == 1
    script = tmp_path / "scale_out.py"
    script.write_text(blocks[0], encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "(1000, 128)" in done.stdout, done.stdout  # 1000 codes of length 2 S(14) = 128


def test_readme_links_resolve():
    """The README's relative links lead to files of the source tree (the docs sources, the gallery)."""
    readme = ROOT / "README.md"
    links = re.findall(r"\]\(([^)#]+)\)", readme.read_text(encoding="utf-8"))
    relative = [link for link in links if "://" not in link]
    assert len(relative) >= 10
    missing = [link for link in relative if not (ROOT / link).exists()]
    assert missing == [], f"README links to missing files: {missing}"


def _public_objects(package: str):
    module = importlib.import_module(package)
    names = (
        ["Limits", "set_isa", "get_isa", "supported_isas", "show_config"]
        if package == "paperkernels"
        else module.__all__
    )
    yield package, module
    for name in names:
        obj = getattr(module, name)
        if callable(obj):
            yield f"{package}.{name}", obj


@pytest.mark.parametrize(
    "package", ["paperkernels", "paperkernels.distributed", "paperkernels.greedy", "paperkernels.shapes"]
)
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


def _documented_parameters(obj) -> list[str] | None:
    """The names under Parameters (and Other Parameters) of obj's numpydoc docstring, in order."""
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(obj) or "")
    entries = [*doc["Parameters"], *doc["Other Parameters"]]
    if not entries:
        return None
    return [part.strip().lstrip("*") for entry in entries for part in entry.name.split(",") if part.strip()]


def _signature_parameters(obj) -> list[str] | None:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # builtins without a text signature
        return None
    return [name for name in signature.parameters if name not in ("self", "cls")]


@pytest.mark.parametrize("package", ["paperkernels", *(f"paperkernels.{m}" for m in MODULES)])
def test_documented_parameters_match_the_signatures(package):
    """Each public function, class and method documents its parameters once each, in signature order."""
    wrong = []
    for name, obj in _public_objects(package):
        if inspect.ismodule(obj):
            continue
        targets = [(name, obj)]
        if inspect.isclass(obj):
            targets += [
                (f"{name}.{attr}", getattr(obj, attr))
                for attr, raw in vars(obj).items()
                if not attr.startswith("_") and inspect.isfunction(getattr(raw, "__func__", raw))
            ]
        for label, target in targets:
            documented, actual = _documented_parameters(target), _signature_parameters(target)
            if documented is not None and actual is not None and documented != actual:
                wrong.append(f"{label}: documents {documented}, signature {actual}")
    assert not wrong, "\n".join(wrong)


@pytest.fixture(scope="module")
def html_site(tmp_path_factory):
    """The HTML site with its gallery, built once with warnings as errors."""
    pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed")
    pytest.importorskip("matplotlib")
    pytest.importorskip("distributed")
    html = tmp_path_factory.mktemp("docs") / "html"
    done = _sphinx("html", html, gallery=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return html


def test_html_site_builds_without_warnings(html_site):
    html = html_site
    for page in (
        "index.html",
        "guide/greedy.html",
        "api/generated/paperkernels.greedy.exact_weights.html",
        "gallery/plot_shapes.html",
    ):
        assert (html / page).is_file(), page
    for name in MODULES:
        if name != "distributed":
            assert (html / "guide" / f"{name}.html").is_file(), name
    # Every gallery example ran and left its figure, and its page shows it: each image the page
    # references is a PNG in the built site.
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        figures = list((html / "_images").glob(f"sphx_glr_{example.stem}_*.png"))
        assert figures, f"{example.name} produced no figure"
        page = html / "gallery" / f"{example.stem}.html"
        sources = re.findall(r'<img[^>]+src="([^"]+)"', page.read_text(encoding="utf-8"))
        shown = [s for s in sources if f"sphx_glr_{example.stem}_" in s]
        assert shown, f"{page.name} shows no figure"
        for src in shown:
            image = (page.parent / src).resolve()
            assert image.is_file() and image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    # The generated benchmark tables are rendered as tables, their markers stay hidden comments.
    bench = (html / "benchmarks.html").read_text(encoding="utf-8")
    assert bench.count("<table") >= 6 and "speed-up" in bench
    assert "&lt;!-- bench" not in bench


# Marks the page with how many of its gallery figures the browser loaded and decoded.
_COUNT_FIGURES = (
    "<script>window.addEventListener('load', () => {"
    " const figures = [...document.images].filter(i => i.src.includes('sphx_glr_'));"
    " document.body.setAttribute('data-figures',"
    " figures.filter(i => i.complete && i.naturalWidth > 0).length + '/' + figures.length); });</script>"
)


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def test_gallery_figures_render_in_a_browser(request):
    """Headless Chromium opens the index, a guide and every gallery page; each gallery figure loads."""
    browser = _browser()
    if browser is None:
        pytest.skip("needs headless Chromium")
    if os.environ.get("PAPERKERNELS_SANITIZED"):
        pytest.skip("the browser is not the code under the sanitizers")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    html_site = request.getfixturevalue("html_site")

    def dump(page: Path) -> str:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--virtual-time-budget=3000",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    assert "paperkernels.greedy" in dump(html_site / "index.html")
    assert "EnsembleForwardSelection" in dump(html_site / "guide" / "greedy.html")
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        page = html_site / "gallery" / f"{example.stem}.html"
        probe = page.with_name(f"_probe_{page.name}")  # beside the page, so relative links still resolve
        probe.write_text(
            page.read_text(encoding="utf-8").replace("</body>", _COUNT_FIGURES + "</body>"), encoding="utf-8"
        )
        found = re.search(r'data-figures="(\d+)/(\d+)"', dump(probe))
        assert found, f"{page.name}: the page did not finish loading"
        loaded, total = map(int, found.groups())
        assert total > 0 and loaded == total, f"{page.name}: {loaded} of {total} figures rendered"
