"""The Examples sections of paperkernels.cascade run: every public function and class, and every
method and property documented on them, each in a fresh namespace."""

import doctest
import os
import time

import pytest

from paperkernels import cascade


def _docstring_tests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = {}
    for name in cascade.__all__:
        obj = getattr(cascade, name)
        if not callable(obj):
            continue
        # Private base classes hold methods of public ones (e.g. the scores of the item-index learners).
        owners = [(name, obj)] + [
            (base.__name__, base)
            for base in getattr(obj, "__mro__", ())[1:]
            if base.__module__.startswith("paperkernels.")
        ]
        for label, owner in owners:
            # module=False: the names are defined in private submodules; take every docstring inside.
            for test in finder.find(owner, f"paperkernels.cascade.{label}", module=False, globs={}):
                if test.examples:
                    tests.setdefault(test.name, test)
    return [tests[key] for key in sorted(tests)]


TESTS = _docstring_tests()


def test_every_public_function_and_class_has_examples():
    documented = {test.name.split(".")[2] for test in TESTS}
    callables = {name for name in cascade.__all__ if callable(getattr(cascade, name))}
    assert sorted(callables - documented) == []


@pytest.mark.parametrize("test", TESTS, ids=[test.name for test in TESTS])
def test_docstring_examples_run(test):
    if "plot_regret" in test.name:
        pytest.importorskip("matplotlib")
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    start = time.process_time()
    runner.run(test, out=report.append)
    cpu = time.process_time() - start
    assert runner.failures == 0, "".join(report)
    if os.environ.get("PAPERKERNELS_SANITIZED") != "1":
        assert cpu < 2.0, f"{test.name}: the examples took {cpu:.2f} s of CPU time"
