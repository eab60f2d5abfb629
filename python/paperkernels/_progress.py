"""Progress reporting for long batch runs: tqdm when installed, silent otherwise."""

from __future__ import annotations

from typing import Any

from ._optional import optional_import


class Progress:
    """``with Progress(total, enabled, desc) as bar: bar.update(n)``; a no-op when disabled or when
    tqdm is missing (``progress=True`` then prints a one-line summary at the end instead)."""

    def __init__(self, total: int, enabled: bool, desc: str = "") -> None:
        self.total = total
        self.enabled = bool(enabled)
        self.desc = desc
        self.done = 0
        self._bar: Any | None = None
        if self.enabled:
            try:
                tqdm = optional_import("tqdm.auto", "progress bars", extra="dask")
            except ImportError:  # the one-line summary instead
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm.tqdm(total=total, desc=desc, leave=False)

    def update(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and exc[0] is None:
            print(f"{self.desc}: {self.done}/{self.total} done")
