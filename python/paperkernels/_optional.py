"""Optional dependencies: imported on first use, with an error that names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

# Distribution name and paperkernels extra of each optional module.
_PROVIDERS = {
    "matplotlib": ("matplotlib", "plot"),
    "matplotlib.pyplot": ("matplotlib", "plot"),
    "shapely": ("shapely", "shapes"),
    "shapely.geometry": ("shapely", "shapes"),
    "dask": ("dask[distributed]", "dask"),
    "distributed": ("dask[distributed]", "dask"),
    "sklearn": ("scikit-learn", "sklearn"),
    "highspy": ("highspy", "relu"),
    "tqdm": ("tqdm", "dask"),
}


def optional_import(module: str, needed_for: str, *, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise ImportError saying that ``needed_for`` needs it and how to install it.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"matplotlib.pyplot"``.
    needed_for : str
        What needs it, as the user called it, e.g. ``"plot_regret"``.
    extra : str, optional
        The paperkernels extra that installs it (default: the one known for ``module``).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ImportError
        When the module is missing (or fails to import), naming the extra and the package.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package, known_extra = _PROVIDERS.get(module, (module.split(".")[0], None))
        extra = extra or known_extra
        hint = f"pip install 'paperkernels[{extra}]' (or pip install {package})" if extra else f"pip install {package}"
        raise ImportError(f"{needed_for} needs {package}: {hint}") from exc
