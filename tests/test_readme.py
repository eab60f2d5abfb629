"""Every Python example of the README runs as written (after the install command it follows)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path):
    if os.environ.get("PAPERKERNELS_SANITIZED") and "LocalCluster" in BLOCKS[index]:
        pytest.skip("dask workers are separate processes, not run under the sanitizers")
    script = tmp_path / "example.py"
    # A non-interactive backend: the plotting examples must not need a display.
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + BLOCKS[index], encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, f"README example {index + 1} failed:\n{BLOCKS[index]}\n{done.stderr[-3000:]}"
