"""Sphinx configuration of the paperkernels documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html`` after installing the ``docs`` extra.
The user guide and the robustness, scale-out, benchmark and development pages are Markdown (MyST).
The gallery in ``examples/`` is executed at build time (set ``PAPERKERNELS_DOCS_NO_GALLERY=1`` to
skip it). Cross-references to numpy, scipy, scikit-learn, shapely and dask need their object
inventories, which are downloaded only when ``PAPERKERNELS_DOCS_INTERSPHINX=1`` (offline builds
resolve those references as plain text instead of failing).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# A source checkout with the extension built in place (cmake) documents that tree; an installed
# package is used otherwise.
# (Look for the compiled module itself: a checkout holds only the Python sources until it is built.)
if any(p.suffix in (".so", ".pyd") for p in (ROOT / "python" / "paperkernels").glob("_core*")):
    sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(HERE / "_ext"))  # gallery_order

import paperkernels  # noqa: E402

project = "paperkernels"
author = "The paperkernels developers"
copyright = "2026, The paperkernels developers"
release = paperkernels.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
# The user guide, the robustness, scale-out, benchmark and development pages are Markdown (MyST).
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "gallery/*.ipynb",
    "gallery/*.py",
    "gallery/*.zip",
    "gallery/*.md5",
    "gallery/*.json",
]
root_doc = "index"
nitpicky = False
default_role = "py:obj"

# -- autodoc / autosummary / numpydoc -------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Completeness of the docstrings this site documents in full: every parameter documented (PR01),
# none unknown (PR02), a Returns section for functions that return (RT01) and Examples (EX01).
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "EX01"}
numpydoc_validation_exclude = {
    r"\.__init__$",
    # Result classes built by the library: their fields are documented under Attributes.
    r"^paperkernels\.greedy\.(PathCVResult|DegreesOfFreedom|BiasVariance)$",
    r"^paperkernels\.shapes\.(GeometryDecoding|PoseFit|PolarGrid)$",
    r"^paperkernels\.relu\.(CanonicalForm|Verdict|FiberDescription)$",
    # Constants and properties.
    r"^paperkernels\.shapes\.(MAX_ORDER|COMPAT_XSHAPEENC)$",
    r"^paperkernels\.distributed\.MAX_CHUNKS$",
    r"^paperkernels\.cascade\.(FEATURE_MAPS|LINKS|MAX_K|MAX_ORDERINGS|MAX_STATES|MAX_TOPICS|PLANNERS|STATE_KINDS)$",
    r"^paperkernels\.cascade\.Plan\.(cascade|value)$",  # named-tuple fields, documented on Plan
    r"^paperkernels\.shapes\.(XShapeEncoder\.S|PoseEncoder\.condition_number|PolarGrid\.shape)$",
}

# -- doctest: the examples of the docstrings and guides run with these imports --------------------
doctest_global_setup = """
import numpy as np
import paperkernels
try:
    import matplotlib
    matplotlib.use("Agg")  # the plotting examples draw without a display
except ImportError:
    pass
"""

# -- intersphinx: only when the network is allowed -------------------------------------------------
intersphinx_mapping = {}
if os.environ.get("PAPERKERNELS_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "scipy": ("https://docs.scipy.org/doc/scipy/", None),
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "shapely": ("https://shapely.readthedocs.io/en/stable/", None),
        "dask": ("https://docs.dask.org/en/stable/", None),
        "distributed": ("https://distributed.dask.org/en/stable/", None),
    }

# -- the gallery ----------------------------------------------------------------------------------
if os.environ.get("PAPERKERNELS_DOCS_NO_GALLERY") == "1":
    # Quick builds (doctests) without the gallery: its pages are missing, links to them are not errors.
    suppress_warnings = ["toc.not_readable", "ref.doc"]
    exclude_patterns += ["gallery", "sg_execution_times.rst"]
else:
    extensions.append("sphinx_gallery.gen_gallery")
    sphinx_gallery_conf = {
        "examples_dirs": str(ROOT / "examples"),
        "gallery_dirs": "gallery",
        "filename_pattern": r"/plot_",
        "download_all_examples": False,
        "remove_config_comments": True,
        "within_subsection_order": "gallery_order.ModuleOrder",
        "matplotlib_animations": False,
        "image_scrapers": ("matplotlib",),
        "show_memory": False,
        "abort_on_example_error": True,
        "min_reported_time": 1,
        "reference_url": {},
    }

# -- html -----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"paperkernels {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# Pages without sub-pages need no section navigation: the article takes its width.
html_sidebars = {
    page: []
    for page in ("index", "getting-started", "robustness", "scale-out", "benchmarks", "development", "changelog")
}


# Only the doctest and testcode directives of these pages (``.. doctest::`` in reStructuredText,
# ```{doctest} and ```{testcode} in the Markdown guides) run under ``-b doctest``; the docstrings'
# examples run in their modules' namespaces (see tests/test_docs.py).
doctest_test_doctest_blocks = ""
