"""The order of the example gallery: the modules in the order of the user guide, then scale-out."""

from __future__ import annotations

from pathlib import Path

ORDER = ("plot_toptwo", "plot_cascade", "plot_greedy", "plot_shapes", "plot_relu", "plot_distributed")


class ModuleOrder:
    """Sort key for sphinx-gallery's ``within_subsection_order``: the known examples in ``ORDER``,
    any other example after them by file name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        stem = Path(filename).stem
        return (ORDER.index(stem), "") if stem in ORDER else (len(ORDER), stem)

    def __repr__(self):
        return f"<{type(self).__name__}>"
