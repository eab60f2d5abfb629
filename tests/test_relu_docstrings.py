"""The Examples of every public function, class and method of paperkernels.relu and relu.moves run."""

from __future__ import annotations

import doctest
import inspect
import time

import pytest

import paperkernels.relu as R
from paperkernels.relu import moves


def _public_objects():
    for module in (R, moves):
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.ismodule(obj):
                yield f"{module.__name__}.{name}", obj


def _public_members():
    """Public functions and classes, and the public methods and properties the classes define."""
    for name, obj in _public_objects():
        yield name
        if inspect.isclass(obj) and not issubclass(obj, Exception):
            for member, value in vars(obj).items():
                if (not member.startswith("_") or member == "__call__") and (
                    inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))
                ):
                    yield f"{name}.{member}"


def _tests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    seen = {}
    for name, obj in _public_objects():
        # module=False: every docstring inside the object, whichever module defines it.
        for test in finder.find(obj, name, module=False, globs={}):
            if test.examples:
                seen.setdefault(test.name, test)
    return sorted(seen.values(), key=lambda t: t.name)


TESTS = _tests()


def test_every_public_docstring_has_examples():
    documented = {t.name for t in TESTS}
    missing = [name for name in _public_members() if name not in documented]
    assert missing == [], f"public names without an Examples section that runs: {missing}"


@pytest.mark.parametrize("test", TESTS, ids=lambda t: t.name)
def test_docstring_example_runs(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    start = time.process_time()
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {test.name} failed"
    assert time.process_time() - start < 1.0, f"the examples of {test.name} take more than a second"
